package io.fanout.batch;

/**
 * One seed placed in its batch of one epoch: what the distributed seed reader emits for every seed it reads, keyed
 * by batch to the stage that assembles the {@link SeedBatch}. A Flink POJO.
 */
public class SeedSlot {
    public int epoch;
    public int batchId;
    /** Place of the seed within its batch. */
    public int index;
    /** Position of the seed in the seed file (PyG {@code input_id}). */
    public int position;
    /** The seed's node id. */
    public long id;
    /** The seed's time (the seed file's second column); 0 when the file gives none. */
    public long time;

    public SeedSlot() {}

    public SeedSlot(int epoch, int batchId, int index, int position, long id, long time) {
        this.epoch = epoch;
        this.batchId = batchId;
        this.index = index;
        this.position = position;
        this.id = id;
        this.time = time;
    }

    /** The key of its batch: {@link SeedBatch#key()}. */
    public long batchKey() {
        return ((long) epoch << 32) | (batchId & 0xffffffffL);
    }

    @Override
    public String toString() {
        return "SeedSlot{epoch " + epoch + ", batch " + batchId + "[" + index + "], position " + position + ", id " + id
                + ", time " + time + "}";
    }
}
