package io.fanout.flink.source;

import io.fanout.batch.BatchPlan;
import io.fanout.batch.SeedBatch;
import io.fanout.batch.SeedSlot;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;

/**
 * Assembles the batches of a {@link SeedFileSource}, keyed by batch: keeps each arriving {@link SeedSlot} in keyed
 * state (RocksDB, not the heap) and emits the {@link SeedBatch}, its seeds by node id in batch order (with their times
 * for a timed seed file), once the last of its {@link BatchPlan#batchLength} seeds is in.
 *
 * <p>Emitting on completion keeps epoch order: every seed of epoch {@code e} reaches this stage before the readers'
 * watermark passes {@code e}, so every batch of {@code e} is out before it too.
 */
public final class SeedBatchAssembler extends KeyedProcessFunction<Long, SeedSlot, SeedBatch> {
    private static final long serialVersionUID = 1L;

    private final BatchPlan plan;
    private final boolean timed;

    private transient ListState<SeedSlot> slots;
    private transient ValueState<Integer> arrived;

    /**
     * The batches of {@code plan}; {@code timed}: the seed file gives times ({@link io.fanout.batch.SeedFile#timed}),
     * which the batches then carry in {@link SeedBatch#seedTimes}.
     */
    public SeedBatchAssembler(BatchPlan plan, boolean timed) {
        this.plan = plan;
        this.timed = timed;
    }

    @Override
    public void open(OpenContext openContext) {
        slots = getRuntimeContext().getListState(new ListStateDescriptor<>("seed-slots", SeedFileSource.TYPE));
        arrived = getRuntimeContext().getState(new ValueStateDescriptor<>("seeds-arrived", Types.INT));
    }

    @Override
    public void processElement(SeedSlot slot, Context ctx, Collector<SeedBatch> out) throws Exception {
        int expected = plan.batchLength(slot.batchId);
        Integer before = arrived.value();
        int count = (before == null ? 0 : before) + 1;
        if (count < expected) {
            slots.add(slot);
            arrived.update(count);
            return;
        }
        long[] ids = new long[expected];
        int[] inputIds = new int[expected];
        long[] times = timed ? new long[expected] : null;
        boolean[] filled = new boolean[expected];
        place(slot, ids, inputIds, times, filled);
        for (SeedSlot s : slots.get()) {
            place(s, ids, inputIds, times, filled);
        }
        slots.clear();
        arrived.clear();
        SeedBatch batch = SeedBatch.ofIds(slot.epoch, slot.batchId, plan.numBatches(), ids, inputIds);
        batch.seedTimes = times;
        out.collect(batch);
    }

    private static void place(SeedSlot s, long[] ids, int[] inputIds, long[] times, boolean[] filled) {
        if (filled[s.index]) {
            throw new IllegalStateException("two seeds for place " + s.index + " of epoch " + s.epoch + " batch "
                    + s.batchId + " (the second: " + s + ")");
        }
        filled[s.index] = true;
        ids[s.index] = s.id;
        inputIds[s.index] = s.position;
        if (times != null) {
            times[s.index] = s.time;
        }
    }
}
