package io.fanout.batch;

import java.util.Arrays;

/**
 * One batch of seed nodes of one epoch: the record the seed source emits and the samplers consume.
 *
 * <p>A Flink POJO (public fields, no-arg constructor) so Flink serializes it with its own
 * {@code PojoSerializer} and primitive-array serializers, never with reflective Kryo.
 */
public class SeedBatch {
    /** Epoch this batch belongs to, from 0. */
    public int epoch;
    /** Index of this batch within its epoch, from 0. */
    public int batchId;
    /** Number of batches in this epoch. */
    public int numBatches;
    /** Seed nodes (store indices; the graph's NodeIdMap gives their ids), in batch order; null with {@link #seedIds}. */
    public int[] seeds;
    /**
     * The seeds' node ids, in batch order, when the batch was assembled from a seed file the workers read
     * ({@link SeedFile}: no index map exists then); null otherwise.
     */
    public long[] seedIds;
    /** Position of each seed in the job's seed list (PyG {@code input_id}), parallel to {@link #seeds}. */
    public int[] inputIds;
    /** Each seed's time (temporal sampling) in batch order, from a timed seed file the workers read; else null. */
    public long[] seedTimes;

    public SeedBatch() {}

    public SeedBatch(int epoch, int batchId, int numBatches, int[] seeds, int[] inputIds) {
        this.epoch = epoch;
        this.batchId = batchId;
        this.numBatches = numBatches;
        this.seeds = seeds;
        this.inputIds = inputIds;
    }

    /** A batch of seeds given by node id ({@link #seedIds}). */
    public static SeedBatch ofIds(int epoch, int batchId, int numBatches, long[] seedIds, int[] inputIds) {
        SeedBatch batch = new SeedBatch(epoch, batchId, numBatches, null, inputIds);
        batch.seedIds = seedIds;
        return batch;
    }

    /** Number of seeds. */
    public int size() {
        return inputIds.length;
    }

    /** The node id of seed {@code i}: {@link #seedIds}, else {@code nodeIds[seeds[i]]} ({@code nodeIds} null: ids equal indices). */
    public long seedId(int i, long[] nodeIds) {
        return seedIds != null ? seedIds[i] : nodeIds == null ? seeds[i] : nodeIds[seeds[i]];
    }

    /** A key unique to (epoch, batchId), used to key the sampling operator. */
    public long key() {
        return ((long) epoch << 32) | (batchId & 0xffffffffL);
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof SeedBatch)) {
            return false;
        }
        SeedBatch b = (SeedBatch) o;
        return epoch == b.epoch && batchId == b.batchId && numBatches == b.numBatches && Arrays.equals(seeds, b.seeds)
                && Arrays.equals(seedIds, b.seedIds) && Arrays.equals(inputIds, b.inputIds)
                && Arrays.equals(seedTimes, b.seedTimes);
    }

    @Override
    public int hashCode() {
        return 31 * (31 * epoch + batchId) + Arrays.hashCode(seeds);
    }

    @Override
    public String toString() {
        return "SeedBatch{epoch=" + epoch + ", batchId=" + batchId + "/" + numBatches + ", seeds=" + size() + "}";
    }
}
