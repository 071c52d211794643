package io.fanout.flink.partitioned;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.flink.partitioned.TypedPprRecords.Answer;
import io.fanout.flink.partitioned.TypedPprRecords.Rows;
import io.fanout.sampling.ppr.TypedNodeRows;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.execution.SuppressRestartsException;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.hashmap.HashMapStateBackend;
import org.apache.flink.state.rocksdb.EmbeddedRocksDBStateBackend;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedTwoInputStreamOperatorTestHarness;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The keyed lookups ({@link KeyedLookups} over {@link KeyedLookupOperator}) on a real RocksDB keyed backend (Flink's
 * operator test harness): a request that comes while values load waits and is answered when the load ends, later
 * ones at once; each lookup answers as its stage reads it; and each keeps the state names its savepoints hold.
 */
class KeyedLookupsTest {
    private final List<KeyedTwoInputStreamOperatorTestHarness<Long, ?, ?, ?>> opened = new ArrayList<>();

    @AfterEach
    void close() throws Exception {
        for (var harness : opened) {
            harness.close();
        }
    }

    private <I, Q, A> KeyedTwoInputStreamOperatorTestHarness<Long, I, Q, A> harness(
            KeyedLookupOperator<I, ?, Q, A> operator, org.apache.flink.api.java.functions.KeySelector<I, Long> loaded,
            org.apache.flink.api.java.functions.KeySelector<Q, Long> asked) throws Exception {
        var harness = new KeyedTwoInputStreamOperatorTestHarness<>(operator, loaded, asked, Types.LONG);
        harness.setStateBackend(new EmbeddedRocksDBStateBackend());
        harness.open();
        opened.add(harness);
        return harness;
    }

    /** The records the harness has emitted so far. */
    @SuppressWarnings("unchecked")
    private static <A> List<A> answers(KeyedTwoInputStreamOperatorTestHarness<Long, ?, ?, A> harness) {
        List<A> out = new ArrayList<>();
        for (Object o : harness.getOutput()) {
            if (o instanceof StreamRecord<?> r) {
                out.add((A) r.getValue());
            }
        }
        return out;
    }

    private static long keys(KeyedTwoInputStreamOperatorTestHarness<Long, ?, ?, ?> harness, String state) {
        try (var stream = harness.getOperator().getKeyedStateBackend().getKeys(state, VoidNamespace.INSTANCE)) {
            return stream.count();
        }
    }

    @Test
    void nodeDataWaitsForTheLoadThenAnswersEachGroupWithItsRowsInOneRecord() throws Exception {
        var harness = harness(KeyedLookups.nodeData(), new PartitionedKHop.RowNode(),
                new PartitionedKHop.NodeRequestNode());
        harness.processElement1(new StreamRecord<>(new NodeRecord(5, 2, new byte[] {1, 2})));
        // Node 7's row is not loaded yet: the group waits.
        harness.processElement2(new StreamRecord<>(new NodeDataRequest(100, new long[] {7, 5}, new int[] {3, 0})));
        harness.processElement1(new StreamRecord<>(new NodeRecord(7, -1, new byte[] {3, 4})));
        assertThat(answers(harness)).isEmpty();
        assertThat(keys(harness, "node-row")).isEqualTo(2);
        assertThat(keys(harness, "waiting-node-request-groups")).isEqualTo(1);

        harness.endInput1();
        harness.processElement2(new StreamRecord<>(new NodeDataRequest(101, new long[] {5}, new int[] {2})));
        List<NodeDataAnswer> out = answers(harness);
        assertThat(out).hasSize(2);
        assertThat(out.get(0).batchKey).isEqualTo(100);
        assertThat(out.get(0).positions).containsExactly(3, 0);
        assertThat(out.get(0).labels).containsExactly(-1, 2);
        assertThat(out.get(0).rowBytes).isEqualTo(2);
        assertThat(out.get(0).rows).containsExactly(3, 4, 1, 2);
        byte[] body = new byte[8];
        out.get(0).copyRow(0, body);
        out.get(0).copyRow(1, body);
        assertThat(body).containsExactly(1, 2, 0, 0, 0, 0, 3, 4); // node 5 at position 0, node 7 at position 3
        assertThat(out.get(1).batchKey).isEqualTo(101);
        assertThat(out.get(1).positions).containsExactly(2);
        assertThat(out.get(1).labels).containsExactly(2);
        assertThat(out.get(1).rows).containsExactly(1, 2);
        assertThat(keys(harness, "waiting-node-request-groups")).isZero();
    }

    /**
     * The requests that waited for the load are answered first for each epoch's first batches, whole (every key's
     * share), then the rest: a trainer's first batches go out while the others are answered. Heap and RocksDB.
     */
    @Test
    void theWaitingRequestsOfEachEpochsFirstBatchesAreAnsweredFirst() throws Exception {
        for (var backend : List.of(new EmbeddedRocksDBStateBackend(), new HashMapStateBackend())) {
            var harness = new KeyedTwoInputStreamOperatorTestHarness<>(KeyedLookups.nodeData(),
                    new PartitionedKHop.RowNode(), new PartitionedKHop.NodeRequestNode(), Types.LONG);
            harness.setStateBackend(backend);
            harness.open();
            opened.add(harness);
            for (long node = 0; node < 20; node++) {
                harness.processElement1(new StreamRecord<>(new NodeRecord(node, (int) node, new byte[] {(byte) node})));
            }
            // Batches of epochs 0 and 1 (batch key epoch << 32 | batch), several groups under one key, before the
            // load ends; batch 9 of epoch 0 comes first and batch 2 of epoch 1 last.
            List<Long> asked = new ArrayList<>();
            long[][] batches = {{0, 9}, {1, 0}, {0, 12}, {0, 1}, {1, 30}, {0, 3}, {1, 2}};
            for (long[] b : batches) {
                long key = b[0] << 32 | b[1];
                for (long node = b[1] % 7; node < 20; node += 7) {
                    harness.processElement2(new StreamRecord<>(new NodeDataRequest(key, new long[] {node},
                            new int[] {0})));
                    asked.add(key);
                }
            }
            assertThat(answers(harness)).isEmpty();
            harness.endInput1();
            List<Long> order = new ArrayList<>();
            for (NodeDataAnswer a : KeyedLookupsTest.<NodeDataAnswer>answers(harness)) {
                order.add(a.batchKey);
            }
            assertThat(order).containsExactlyInAnyOrderElementsOf(asked);
            int firsts = (int) asked.stream().filter(k -> (int) (long) k < KeyedDrain.FIRST_BATCHES).count();
            assertThat(order.subList(0, firsts)).allMatch(k -> (int) (long) k < KeyedDrain.FIRST_BATCHES);
            assertThat(order.subList(firsts, order.size())).noneMatch(k -> (int) (long) k < KeyedDrain.FIRST_BATCHES);
            assertThat(keys(harness, "waiting-node-request-groups")).isZero();
        }
    }

    @Test
    void nodeDataCachesTheRowsItReadSoARepeatedNodeIsAHit() throws Exception {
        var harness = harness(KeyedLookups.nodeData().cached(1 << 20, 1), new PartitionedKHop.RowNode(),
                new PartitionedKHop.NodeRequestNode());
        harness.processElement1(new StreamRecord<>(new NodeRecord(5, 2, new byte[] {1, 2})));
        harness.processElement1(new StreamRecord<>(new NodeRecord(7, 0, new byte[] {3, 4})));
        harness.endInput1();
        harness.processElement2(new StreamRecord<>(new NodeDataRequest(1, new long[] {5, 7}, new int[] {0, 1})));
        harness.processElement2(new StreamRecord<>(new NodeDataRequest(2, new long[] {7}, new int[] {4})));
        var context = harness.getOperator().getRuntimeContext();
        assertThat(context.getLongCounter(NeighborLookupOperator.CACHE_MISSES).getLocalValue()).isEqualTo(2);
        assertThat(context.getLongCounter(NeighborLookupOperator.CACHE_HITS).getLocalValue()).isEqualTo(1);
        List<NodeDataAnswer> out = answers(harness);
        assertThat(out.get(1).labels).containsExactly(0);
        assertThat(out.get(1).rows).containsExactly(3, 4); // the cached row, as stored
    }

    @Test
    void aNodeWithoutARowFailsTheJobWithoutRestartsNamingIt() throws Exception {
        var harness = harness(KeyedLookups.nodeData(), new PartitionedKHop.RowNode(),
                new PartitionedKHop.NodeRequestNode());
        harness.processElement1(new StreamRecord<>(new NodeRecord(5, 2, new byte[] {1, 2})));
        harness.endInput1();
        assertThatThrownBy(() -> harness.processElement2(new StreamRecord<>(new NodeDataRequest(1,
                new long[] {5, 9}, new int[] {0, 1})))).isInstanceOf(SuppressRestartsException.class)
                .hasStackTraceContaining("node 9 is in the graph");
    }

    @Test
    void pprListsAnswerAGroupInOneRecordAndANodeWithoutEdgesAsDangling() throws Exception {
        var harness = harness(KeyedLookups.pprLists(), new PartitionedPpr.ListNode(), new PartitionedPpr.RequestNode());
        PprNodeList list = new PprNodeList();
        list.node = 4;
        list.degree = 3;
        list.neighbors = new long[] {8, 9};
        list.neighborDegrees = new int[] {1, 5};
        harness.processElement1(new StreamRecord<>(list));
        harness.endInput1();
        harness.processElement2(new StreamRecord<>(new PprFetchRequest(77, new long[] {4, 6}, 0)));
        List<PprAnswerGroup> out = answers(harness);
        assertThat(out).hasSize(1);
        PprAnswerGroup group = out.get(0);
        assertThat(group.batchKey).isEqualTo(77);
        assertThat(group.nodes).containsExactly(4, 6);
        assertThat(group.degrees).containsExactly(3, 0); // 6 has no list: dangling
        assertThat(group.neighbors).containsExactly(8, 9);
        assertThat(group.neighborDegrees).containsExactly(1, 5);
        assertThat(keys(harness, "ppr-list")).isEqualTo(1);
    }

    @Test
    void typedPprRowsAnswerStoredBytesAndEmptyRowsForANodeWithoutEdges() throws Exception {
        var harness = harness(KeyedLookups.typedPprRows(2), new PartitionedTypedPpr.RowsNode(),
                new PartitionedPpr.RequestNode());
        byte[] stored = {9, 9, 9};
        harness.processElement2(new StreamRecord<>(new PprFetchRequest(5, new long[] {1, 2}, 0)));
        harness.processElement1(new StreamRecord<>(new Rows(1, stored)));
        assertThat(keys(harness, "typed-waiting-requests")).isEqualTo(1);
        assertThat(keys(harness, "typed-ppr-rows")).isEqualTo(1);
        harness.endInput1();
        List<Answer> out = answers(harness);
        assertThat(out).hasSize(1);
        assertThat(out.get(0).nodes).containsExactly(1, 2);
        assertThat(out.get(0).rows[0]).containsExactly(stored);
        assertThat(out.get(0).rows[1]).containsExactly(TypedNodeRows.empty(2).toBytes());
    }
}
