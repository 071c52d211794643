package io.fanout.flink.partitioned;

import static org.assertj.core.api.Assertions.assertThat;

import io.fanout.sampling.partitioned.NeighborBuckets;
import java.util.concurrent.RunnableFuture;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.common.typeutils.base.IntSerializer;
import org.apache.flink.api.common.typeutils.base.array.LongPrimitiveArraySerializer;
import org.apache.flink.runtime.checkpoint.CheckpointOptions;
import org.apache.flink.runtime.state.CheckpointableKeyedStateBackend;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.apache.flink.runtime.state.SnapshotResult;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.runtime.state.hashmap.HashMapStateBackend;
import org.apache.flink.runtime.state.memory.MemCheckpointStreamFactory;
import org.apache.flink.streaming.util.KeyedTwoInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;

/**
 * Flink's heap backend with the partitioned store's {@code long[]} serializers ({@link LongArrayStateSerializer}):
 * a read while a checkpoint's asynchronous part is still to be written returns the stored array, where Flink's own
 * {@code long[]} serializer hands out a copy, so a heap checkpoint does not hold the nodes a lookup reads twice.
 */
class HeapSnapshotReadTest {

    @Test
    void aReadDuringAnUnfinishedHeapSnapshotSharesTheStoredArrays() throws Exception {
        var harness = new KeyedTwoInputStreamOperatorTestHarness<>(
                new NeighborLookupOperator(-1, false, 7, 4, 0, 1, false), new PartitionedKHop.BatchNode(),
                new PartitionedKHop.RequestNode(), Types.LONG);
        harness.setStateBackend(new HashMapStateBackend());
        harness.open();
        try {
            @SuppressWarnings("unchecked")
            CheckpointableKeyedStateBackend<Long> backend =
                    (CheckpointableKeyedStateBackend<Long>) harness.getOperator().<Long>getKeyedStateBackend();
            ValueState<long[]> head = backend.getPartitionedState(VoidNamespace.INSTANCE,
                    VoidNamespaceSerializer.INSTANCE, new ValueStateDescriptor<>("head", CompactLongArraySerializer.INSTANCE));
            MapState<Integer, long[]> buckets = backend.getPartitionedState(VoidNamespace.INSTANCE,
                    VoidNamespaceSerializer.INSTANCE, new MapStateDescriptor<>("buckets", IntSerializer.INSTANCE,
                            CompactLongArraySerializer.INSTANCE));
            ListState<long[]> index = backend.getPartitionedState(VoidNamespace.INSTANCE,
                    VoidNamespaceSerializer.INSTANCE, NeighborLookupOperator.groupIndexDescriptor());
            ValueState<long[]> flinks = backend.getPartitionedState(VoidNamespace.INSTANCE,
                    VoidNamespaceSerializer.INSTANCE, new ValueStateDescriptor<>("flinks", LongPrimitiveArraySerializer.INSTANCE));

            backend.setCurrentKey(3L);
            long[] first = {6, 11, 12, 13, 14};
            long[] later = {15, 16};
            long[] entry = NeighborBuckets.GroupIndex.inline(40, new long[] {11, 12});
            long[] plain = {11, 12};
            head.update(first);
            buckets.put(1, later);
            index.add(entry);
            flinks.update(plain);

            RunnableFuture<SnapshotResult<KeyedStateHandle>> snapshot = backend.snapshot(1L, 1L,
                    new MemCheckpointStreamFactory(1 << 20), CheckpointOptions.forCheckpointWithDefaultLocation());
            // The snapshot's synchronous part has run; its asynchronous part, which writes the old versions, has not.
            assertThat(flinks.value()).as("Flink's serializer: a copy for the live map").isNotSameAs(plain)
                    .isEqualTo(plain);
            assertThat(head.value()).isSameAs(first);
            assertThat(buckets.get(1)).isSameAs(later);
            assertThat(index.get().iterator().next()).isSameAs(entry);

            snapshot.run();
            assertThat(snapshot.get().getJobManagerOwnedSnapshot()).as("the checkpoint is written").isNotNull();
            assertThat(head.value()).containsExactly(6, 11, 12, 13, 14);
        } finally {
            harness.close();
        }
    }
}
