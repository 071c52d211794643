package io.fanout.message;

import io.fanout.connectors.message.Tensor;
import io.fanout.graph.CsrGraph;

/**
 * A sample's per-edge data, rows aligned with its edges: {@code eids} (int64 [m], each edge's input row),
 * {@code efeats} (float32 [m, 1], the weight column) and {@code edgeTime} (int64 [m], the time column); any part null
 * when absent.
 */
public record EdgeData(Tensor eids, Tensor efeats, Tensor edgeTime) {

    /**
     * The data of the edges at CSR positions {@code positions[0..m)} of {@code graph}: ids and weights when the graph
     * kept edge ids, times when {@code times} and the graph has them; null without positions.
     */
    public static EdgeData gather(CsrGraph graph, int[] positions, int m, boolean times) {
        if (positions == null) {
            return null;
        }
        Tensor eids = null;
        Tensor efeats = null;
        if (graph.hasEdgeIds()) {
            int[] edgeIds = graph.edgeIds();
            long[] ids = new long[m];
            for (int i = 0; i < m; i++) {
                ids[i] = edgeIds[positions[i]];
            }
            eids = Tensor.ofInt64(ids);
            if (graph.hasWeights()) {
                float[] weights = graph.weights();
                float[] values = new float[m];
                for (int i = 0; i < m; i++) {
                    values[i] = weights[positions[i]];
                }
                efeats = Tensor.ofFloat32(values, new long[] {m, 1});
            }
        }
        Tensor edgeTime = null;
        if (times && graph.hasTimestamps()) {
            long[] stamps = graph.timestamps();
            long[] values = new long[m];
            for (int i = 0; i < m; i++) {
                values[i] = stamps[positions[i]];
            }
            edgeTime = Tensor.ofInt64(values);
        }
        return new EdgeData(eids, efeats, edgeTime);
    }
}
