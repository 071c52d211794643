package io.fanout.flink.partitioned;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.features.NodeFileReaderTest;
import io.fanout.testing.SharedData;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.state.rocksdb.EmbeddedRocksDBStateBackend;
import org.apache.flink.state.rocksdb.RocksDBKeyedStateBackend;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedTwoInputStreamOperatorTestHarness;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.rocksdb.FlushOptions;

/**
 * {@link LoadCompaction} on a real RocksDB keyed backend (Flink's operator test harness): cora's edges loaded into a
 * {@link NeighborLookupOperator} as a load does it (groups per buffer of rows, several flushed sorted runs), then
 * every node's whole list asked for.
 */
class LoadCompactionTest {
    private static final int ROWS_PER_BUFFER = 1_000;
    /** cora's undirected rows as the load's edge groups, in arrival order. */
    private static List<EdgeGroup> groups;
    /** node -> its whole list in the memory store's order (row order). */
    private static TreeMap<Long, long[]> lists;

    private final List<KeyedTwoInputStreamOperatorTestHarness<Long, EdgeGroupBatch, RequestGroup, AnswerGroup>> opened =
            new ArrayList<>();

    @BeforeAll
    static void loadCora() throws Exception {
        List<String[]> rows = NodeFileReaderTest.referenceRows(SharedData.graph("cora").resolve("edges.tsv"));
        groups = new ArrayList<>();
        Map<Long, List<Long>> all = new TreeMap<>();
        for (int from = 0; from < rows.size(); from += ROWS_PER_BUFFER) {
            Map<Long, long[]> firstOrder = new LinkedHashMap<>(); // node -> {order}
            Map<Long, List<Long>> buffer = new LinkedHashMap<>();
            for (int i = from; i < Math.min(rows.size(), from + ROWS_PER_BUFFER); i++) {
                long src = Long.parseLong(rows.get(i)[0]);
                long dst = Long.parseLong(rows.get(i)[1]);
                for (long[] edge : new long[][] {{src, dst}, {dst, src}}) {
                    firstOrder.putIfAbsent(edge[0], new long[] {2L * i + (edge[0] == src ? 0 : 1)});
                    buffer.computeIfAbsent(edge[0], n -> new ArrayList<>()).add(edge[1]);
                    all.computeIfAbsent(edge[0], n -> new ArrayList<>()).add(edge[1]);
                }
            }
            buffer.forEach((node, neighbors) -> groups.add(new EdgeGroup(node, firstOrder.get(node)[0],
                    neighbors.stream().mapToLong(Long::longValue).toArray())));
        }
        lists = new TreeMap<>();
        all.forEach((node, neighbors) -> lists.put(node, neighbors.stream().mapToLong(Long::longValue).toArray()));
    }

    @AfterEach
    void close() throws Exception {
        for (var harness : opened) {
            harness.close();
        }
    }

    /** A lookup (whole lists, buckets of 4) on RocksDB, cora loaded with a flush after every 1,000 groups. */
    private KeyedTwoInputStreamOperatorTestHarness<Long, EdgeGroupBatch, RequestGroup, AnswerGroup> loaded(boolean compact)
            throws Exception {
        var harness = new KeyedTwoInputStreamOperatorTestHarness<>(
                new NeighborLookupOperator(-1, false, 7, 4, 0, 1, compact), new PartitionedKHop.BatchNode(),
                new PartitionedKHop.RequestNode(), Types.LONG);
        harness.setStateBackend(new EmbeddedRocksDBStateBackend());
        harness.open();
        opened.add(harness);
        for (int i = 0; i < groups.size(); i++) {
            harness.processElement1(new StreamRecord<>(EdgeGroupBatch.of(groups.get(i))));
            if (i % 1_000 == 999) {
                try (FlushOptions flush = new FlushOptions().setWaitForFlush(true)) {
                    database(harness).flush(flush, groupIndex(harness));
                }
            }
        }
        return harness;
    }

    private static RocksDBKeyedStateBackend<?> backend(KeyedTwoInputStreamOperatorTestHarness<?, ?, ?, ?> harness) {
        return (RocksDBKeyedStateBackend<?>) harness.getOperator().getKeyedStateBackend();
    }

    private static org.rocksdb.RocksDB database(KeyedTwoInputStreamOperatorTestHarness<?, ?, ?, ?> harness)
            throws Exception {
        return LoadCompaction.database(backend(harness));
    }

    private static org.rocksdb.ColumnFamilyHandle groupIndex(KeyedTwoInputStreamOperatorTestHarness<?, ?, ?, ?> harness)
            throws Exception {
        return LoadCompaction.family(backend(harness), NeighborLookupOperator.GROUP_INDEX);
    }

    private static long property(KeyedTwoInputStreamOperatorTestHarness<?, ?, ?, ?> harness, String name)
            throws Exception {
        return Long.parseLong(database(harness).getProperty(groupIndex(harness), name));
    }

    /** Sorted runs a point read of the group index may visit: each level-0 file, and each other level holding files. */
    private static long sortedRuns(KeyedTwoInputStreamOperatorTestHarness<?, ?, ?, ?> harness) throws Exception {
        long runs = property(harness, "rocksdb.num-files-at-level0");
        for (int level = 1; level < 7; level++) {
            runs += property(harness, "rocksdb.num-files-at-level" + level) > 0 ? 1 : 0;
        }
        return runs;
    }

    /** Every node's answer to one request per 100 nodes, by node. */
    private static TreeMap<Long, long[]> askEveryNode(
            KeyedTwoInputStreamOperatorTestHarness<Long, EdgeGroupBatch, RequestGroup, AnswerGroup> harness) throws Exception {
        long[] nodes = lists.keySet().stream().mapToLong(Long::longValue).toArray();
        for (int from = 0; from < nodes.length; from += 100) {
            long[] part = Arrays.copyOfRange(nodes, from, Math.min(nodes.length, from + 100));
            int[] positions = new int[part.length];
            Arrays.setAll(positions, i -> i);
            harness.processElement2(new StreamRecord<>(new RequestGroup(from, 0, from / 100, 1, 0, part, positions)));
        }
        TreeMap<Long, long[]> answers = new TreeMap<>();
        for (Object out : harness.getOutput()) {
            @SuppressWarnings("unchecked")
            AnswerGroup answer = ((StreamRecord<AnswerGroup>) out).getValue();
            long[][] inOrder = new long[answer.size()][];
            answer.scatter(inOrder);
            int from = (int) answer.batchKey;
            for (int i = 0; i < inOrder.length; i++) {
                answers.put(nodes[from + i], inOrder[i]);
            }
        }
        return answers;
    }

    @Test
    void theEndOfTheLoadMergesTheSortedRunsIntoOneLevelAndEveryListStaysTheSame() throws Exception {
        var compacted = loaded(true);
        assertThat(sortedRuns(compacted)).as("flushed runs before the end").isGreaterThan(1);
        compacted.endInput1();
        assertThat(sortedRuns(compacted)).isEqualTo(1);
        assertThat(property(compacted, "rocksdb.num-files-at-level0")).isZero();
        assertThat(property(compacted, "rocksdb.num-entries-active-mem-table")).isZero();
        assertSameLists(askEveryNode(compacted));

        var loose = loaded(false);
        loose.endInput1();
        assertThat(sortedRuns(loose)).as("not compacted").isGreaterThan(1);
        assertSameLists(askEveryNode(loose));
    }

    @Test
    void aCancelledTaskStopsTheCompactionAndKeepsTheLoadedState() throws Exception {
        var harness = loaded(false);
        Thread.currentThread().interrupt(); // as Flink's task canceller does
        try {
            assertThatThrownBy(() -> LoadCompaction.compact(backend(harness), loadedStates()))
                    .isInstanceOf(InterruptedException.class);
        } finally {
            Thread.interrupted();
        }
        harness.endInput1();
        assertSameLists(askEveryNode(harness));
    }

    /** Where a cluster's Flink lacks 2.3's backend fields, Flink's public compaction merges the runs as well. */
    @Test
    void theFallbackThroughFlinksCompactStateMergesTheRunsAndKeepsEveryList() throws Exception {
        var harness = loaded(false);
        assertThat(sortedRuns(harness)).isGreaterThan(1);
        LoadCompaction.compactWithFlink(backend(harness), loadedStates());
        assertThat(sortedRuns(harness)).isEqualTo(1);
        harness.endInput1();
        assertSameLists(askEveryNode(harness));
    }

    /** The lookup's loaded states, described as the operator registers them. */
    private static org.apache.flink.api.common.state.StateDescriptor<?, ?>[] loadedStates() {
        return new org.apache.flink.api.common.state.StateDescriptor<?, ?>[] {
            NeighborLookupOperator.groupIndexDescriptor(), NeighborLookupOperator.loadingDescriptor()};
    }

    @Test
    void aHeapBackendHasNothingToCompact() throws Exception {
        var harness = new KeyedTwoInputStreamOperatorTestHarness<>(
                new NeighborLookupOperator(-1, false, 7, 4, 0, 1, true), new PartitionedKHop.BatchNode(),
                new PartitionedKHop.RequestNode(), Types.LONG);
        harness.open();
        opened.add(harness);
        for (int from = 0; from < groups.size(); from += 50) { // as the edge reader sends them: many groups a record
            harness.processElement1(new StreamRecord<>(batch(groups.subList(from, Math.min(groups.size(), from + 50)))));
        }
        assertThat(LoadCompaction.compact(harness.getOperator().getKeyedStateBackend())).isFalse();
        harness.endInput1();
        assertSameLists(askEveryNode(harness));
    }

    /** {@code part}'s groups as one record. */
    private static EdgeGroupBatch batch(List<EdgeGroup> part) {
        long[] nodes = new long[part.size()];
        long[] orders = new long[part.size()];
        int[] ends = new int[part.size()];
        List<Long> neighbors = new ArrayList<>();
        for (int i = 0; i < part.size(); i++) {
            nodes[i] = part.get(i).node;
            orders[i] = part.get(i).order;
            for (long v : part.get(i).neighbors) {
                neighbors.add(v);
            }
            ends[i] = neighbors.size();
        }
        return new EdgeGroupBatch(nodes, orders, ends, neighbors.stream().mapToLong(Long::longValue).toArray());
    }

    private static void assertSameLists(TreeMap<Long, long[]> answers) {
        assertThat(answers.keySet()).containsExactlyElementsOf(lists.keySet());
        lists.forEach((node, list) -> assertThat(answers.get(node)).as("node %d", node).containsExactly(list));
    }
}
