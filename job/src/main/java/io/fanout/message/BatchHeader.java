package io.fanout.message;

import io.fanout.batch.SeedBatch;
import io.fanout.connectors.message.Tensor;
import io.fanout.graph.NodeIdMap;

/**
 * The batch keys every message carries: the seed ids (null when the batch has no seed nodes, as a link batch), their
 * input positions ({@code #META.input_id}, or null) and the batch's epoch, id and count.
 */
public record BatchHeader(Tensor seedIds, int[] inputIds, int epoch, int batchId, int numBatches) {

    /** A memory-store batch of seed nodes, their ids through {@code ids}. */
    public static BatchHeader of(SeedBatch batch, NodeIdMap ids) {
        return new BatchHeader(HomogeneousSample.nodeIds(ids, batch.seeds, batch.seeds.length), batch.inputIds,
                batch.epoch, batch.batchId, batch.numBatches);
    }

    /** A memory-store batch without seed nodes (a link batch: its seeds are positions of seed edges). */
    public static BatchHeader withoutSeeds(SeedBatch batch) {
        return new BatchHeader(null, batch.inputIds, batch.epoch, batch.batchId, batch.numBatches);
    }

    /** A batch whose seed ids are known (the partitioned store's). */
    public static BatchHeader of(long[] seedIds, int[] inputIds, int epoch, int batchId, int numBatches) {
        return new BatchHeader(Tensor.ofInt64(seedIds), inputIds, epoch, batchId, numBatches);
    }
}
