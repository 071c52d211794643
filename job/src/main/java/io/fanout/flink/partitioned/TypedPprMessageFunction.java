package io.fanout.flink.partitioned;

import io.fanout.batch.TrainerShares;
import io.fanout.connectors.message.EncodedMessage;
import io.fanout.features.FeatureDType;
import io.fanout.message.BatchHeader;
import io.fanout.message.TypedSample;
import io.fanout.sampling.ppr.TypedPprSubgraph;

/**
 * A typed PPR batch after its selection (and node data) as its message: the batch as a {@link TypedSample} (per
 * node type ids, counts and node data; per node type the PPR edges and weights; with sampled edges, per reported
 * edge type rows, cols and counts), encoded by the message layer's one encoder, so its bytes are the memory
 * store's for the same batch ({@link MessageStageFunction}: borrowed, counted).
 */
public class TypedPprMessageFunction extends MessageStageFunction<TypedPartialBatch> {
    private static final long serialVersionUID = 1L;

    private final TypedLayout layout;
    private final boolean includeSampledEdges;
    private final FeatureDType dtype;
    private final float[][] scale;
    private final float[][] offset;
    private final int[] dims;
    private final TrainerShares shares;

    TypedPprMessageFunction(TypedLayout layout, boolean includeSampledEdges, FeatureDType dtype, float[][] scale,
            float[][] offset, int[] dims, TrainerShares shares) {
        this.layout = layout;
        this.includeSampledEdges = includeSampledEdges;
        this.dtype = dtype;
        this.scale = scale;
        this.offset = offset;
        this.dims = dims.clone();
        this.shares = shares == null ? TrainerShares.ONE : shares;
    }

    @Override
    public EncodedMessage map(TypedPartialBatch batch) {
        String seedType = layout.nodeTypes.get(layout.seedType);
        TypedSample sample = new TypedSample(seedType);
        int numNodes = 0;
        int numEdges = 0;
        for (int t = 0; t < layout.nodeTypes.size(); t++) {
            String type = layout.nodeTypes.get(t);
            long[] ids = batch.ids[t];
            numNodes += ids.length;
            numEdges += batch.pprEdgeIndex[t].length / 2;
            sample.nodes(type, ids, new int[] {ids.length},
                    TypedMessageFunction.nodeData(batch, t, dims[t], dtype, scale, offset, layout.seedType), null);
            sample.pprEdges(TypedPprSubgraph.pprEdgeType(seedType, type), batch.pprEdgeIndex[t], batch.pprWeights[t],
                    batch.pprColumns);
        }
        if (includeSampledEdges) {
            for (int r = 0; r < layout.reported.size(); r++) {
                numEdges += batch.rows[r].length;
                sample.edges(layout.reported.get(r).toString(), batch.rows[r], batch.cols[r],
                        new int[] {batch.rows[r].length});
            }
        }
        return write(sample, BatchHeader.of(batch.seeds, batch.inputIds, batch.epoch, batch.batchId, batch.numBatches),
                shares, batch.seeds.length, numNodes, numEdges);
    }
}
