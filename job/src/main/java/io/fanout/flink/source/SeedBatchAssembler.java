package io.fanout.flink.source;

import io.fanout.batch.BatchPlan;
import io.fanout.batch.SeedBatch;
import io.fanout.batch.SeedSlot;
import org.apache.flink.api.common.operators.MailboxExecutor;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.BoundedOneInput;
import org.apache.flink.streaming.api.operators.InternalTimer;
import org.apache.flink.streaming.api.operators.InternalTimerService;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.api.operators.Triggerable;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;

/**
 * Assembles the batches of a {@link SeedFileSource}, keyed by batch: keeps each arriving {@link SeedSlot} in keyed
 * state (RocksDB, not the heap) and emits the {@link SeedBatch}, its seeds by node id in batch order, once the last
 * of its {@link BatchPlan#batchLength} seeds is in.
 *
 * <p>Emitting on completion keeps epoch order: every seed of epoch {@code e} reaches this stage before the readers'
 * watermark passes {@code e}, so every batch of {@code e} is out before it too. With {@code maxBatchesPerSecond}
 * (the {@code --max-batches-per-second} option, for demonstrations and tests) a complete batch waits for a
 * processing-time timer at this subtask's next free slot of its share of the rate instead (a sleep would hold the
 * checkpoint barriers behind the queued seeds); a watermark that arrives while batches wait is held until the last
 * of them is out, so it still follows them.
 */
public final class SeedBatchAssembler extends AbstractStreamOperator<SeedBatch>
        implements OneInputStreamOperator<SeedSlot, SeedBatch>, BoundedOneInput, Triggerable<Long, VoidNamespace> {
    private static final long serialVersionUID = 1L;

    private final BatchPlan plan;
    private final int maxBatchesPerSecond;

    private transient ListState<SeedSlot> slots;
    private transient ValueState<Integer> arrived;
    private transient InternalTimerService<VoidNamespace> timers;
    /** Set on a complete batch whose timer is pending (paced); their number is {@link #waiting}. */
    private transient ValueState<Boolean> paced;
    private transient long waiting;
    private transient long intervalMillis;
    private transient long nextEmitMillis;
    /** The latest watermark held back while paced batches wait, or null. */
    private transient Watermark held;
    private transient MailboxExecutor mailbox;

    public SeedBatchAssembler(BatchPlan plan, int maxBatchesPerSecond) {
        this.plan = plan;
        this.maxBatchesPerSecond = maxBatchesPerSecond;
    }

    @Override
    public void setMailboxExecutor(MailboxExecutor mailboxExecutor) {
        super.setMailboxExecutor(mailboxExecutor);
        this.mailbox = mailboxExecutor;
    }

    @Override
    public void open() throws Exception {
        super.open();
        slots = getRuntimeContext().getListState(new ListStateDescriptor<>("seed-slots", SeedFileSource.TYPE));
        arrived = getRuntimeContext().getState(new ValueStateDescriptor<>("seeds-arrived", Types.INT));
        timers = getInternalTimerService("paced-batches", VoidNamespaceSerializer.INSTANCE, this);
        paced = getRuntimeContext().getState(new ValueStateDescriptor<>("paced", Types.BOOLEAN));
        // A restored subtask's waiting batches (their timers are restored with them): count them once.
        try (java.util.stream.Stream<?> keys = getKeyedStateBackend().getKeys("paced", VoidNamespace.INSTANCE)) {
            waiting = keys.count();
        }
        int parallelism = getRuntimeContext().getTaskInfo().getNumberOfParallelSubtasks();
        intervalMillis = maxBatchesPerSecond == 0 ? 0 : Math.max(1, 1000L * parallelism / maxBatchesPerSecond);
    }

    @Override
    public void processElement(StreamRecord<SeedSlot> element) throws Exception {
        SeedSlot slot = element.getValue();
        int expected = plan.batchLength(slot.batchId);
        Integer before = arrived.value();
        int count = (before == null ? 0 : before) + 1;
        slots.add(slot);
        arrived.update(count);
        if (count < expected) {
            return;
        }
        if (intervalMillis == 0) {
            emit(slot.epoch, slot.batchId, expected);
            return;
        }
        long now = getProcessingTimeService().getCurrentProcessingTime();
        long at = Math.max(now, nextEmitMillis);
        nextEmitMillis = at + intervalMillis;
        paced.update(true);
        waiting++;
        timers.registerProcessingTimeTimer(VoidNamespace.INSTANCE, at);
    }

    @Override
    public void onProcessingTime(InternalTimer<Long, VoidNamespace> timer) throws Exception {
        long key = timer.getKey();
        int batchId = (int) key;
        emit((int) (key >>> 32), batchId, plan.batchLength(batchId));
        paced.clear();
        waiting--;
        if (held != null && waiting == 0) {
            Watermark mark = held;
            held = null;
            super.processWatermark(mark);
        }
    }

    /**
     * Flink drops pending processing-time timers when a task finishes, and the readers finish long before paced
     * batches are out: wait for them here, running the task's mailbox (their timers, checkpoints) meanwhile.
     */
    @Override
    public void endInput() throws Exception {
        while (waiting > 0) {
            mailbox.yield();
        }
    }

    @Override
    public void onEventTime(InternalTimer<Long, VoidNamespace> timer) {}

    @Override
    public void processWatermark(Watermark mark) throws Exception {
        if (waiting > 0) {
            held = mark; // watermarks only grow
            return;
        }
        super.processWatermark(mark);
    }

    /** Emits the current key's batch from its slots and clears them. */
    private void emit(int epoch, int batchId, int expected) throws Exception {
        long[] ids = new long[expected];
        int[] inputIds = new int[expected];
        boolean[] filled = new boolean[expected];
        for (SeedSlot s : slots.get()) {
            if (filled[s.index]) {
                throw new IllegalStateException("two seeds for place " + s.index + " of epoch " + epoch + " batch "
                        + batchId + " (the second: " + s + ")");
            }
            filled[s.index] = true;
            ids[s.index] = s.id;
            inputIds[s.index] = s.position;
        }
        slots.clear();
        arrived.clear();
        output.collect(new StreamRecord<>(SeedBatch.ofIds(epoch, batchId, plan.numBatches(), ids, inputIds), epoch));
    }
}
