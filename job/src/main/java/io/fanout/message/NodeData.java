package io.fanout.message;

import io.fanout.connectors.message.DType;
import io.fanout.connectors.message.Tensor;
import io.fanout.features.FeatureDType;
import io.fanout.features.NodeFeatures;

/**
 * A sample's node features and labels, rows aligned with its node ids: {@code nfeats} [n, dim] in the store's dtype,
 * for uint8 with the per-column {@code scale} and {@code offset} [dim], and {@code labels} int64 [n]; any part null
 * when absent.
 */
public record NodeData(Tensor nfeats, Tensor scale, Tensor offset, Tensor labels) {

    /**
     * The rows of node indices {@code nodes[0..n)} gathered from {@code features} (null: no node file, no data);
     * labels only when {@code labels} (GLT's typed messages carry the seed types' labels only).
     */
    public static NodeData gather(NodeFeatures features, int[] nodes, int n, boolean labels) {
        if (features == null) {
            return null;
        }
        byte[] rows = features.hasFeatures() ? features.gatherRows(nodes, n) : null;
        return of(features.dtype(), features.hasFeatures() ? features.dim() : 0, n, rows, features.scale(),
                features.offset(), labels && features.hasLabels() ? features.gatherLabels(nodes, n) : null);
    }

    /**
     * Node data already gathered (the partitioned store's): {@code dim} 0 means no features; {@code scale} and
     * {@code offset} are used for uint8 only; {@code labels} null means none.
     */
    public static NodeData of(FeatureDType dtype, int dim, int n, byte[] rows, float[] scale, float[] offset,
            long[] labels) {
        Tensor nfeats = null;
        Tensor scaleTensor = null;
        Tensor offsetTensor = null;
        if (dim > 0) {
            nfeats = Tensor.ofBytes(DType.valueOf(dtype.safetensorsName()), new long[] {n, dim}, rows);
            if (dtype == FeatureDType.UINT8) {
                scaleTensor = Tensor.ofFloat32(scale, new long[] {dim});
                offsetTensor = Tensor.ofFloat32(offset, new long[] {dim});
            }
        }
        return new NodeData(nfeats, scaleTensor, offsetTensor, labels == null ? null : Tensor.ofInt64(labels));
    }
}
