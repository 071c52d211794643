package io.fanout.message;

import io.fanout.connectors.message.Tensor;
import io.fanout.graph.CsrGraph;
import io.fanout.graph.NodeIdMap;
import io.fanout.sampling.SampledSubgraph;
import io.fanout.sampling.ppr.PprSubgraph;
import io.fanout.store.GraphStore;

/**
 * A sample of a plain graph: node ids (not store indices), edges as local {@code rows}/{@code cols}, the per-hop
 * counts, node and edge data, PyG's per-node tree ({@code #META.batch}) of disjoint samples, and for PPR GiGL's
 * {@code #META.edge_index}/{@code #META.edge_attr} (then rows and cols are empty). Parts are null when absent.
 */
public final class HomogeneousSample implements Sample {
    private final Tensor ids;
    private final Tensor rows;
    private final Tensor cols;
    private Tensor numSampledNodes;
    private Tensor numSampledEdges;
    private NodeData nodeData;
    private Tensor nodeBatch;
    private EdgeData edgeData;
    private Tensor pprEdgeIndex;
    private Tensor pprEdgeAttr;
    private final SampleMetadata metadata = new SampleMetadata();

    /** A sample of these node ids and local edges; the other parts are set by the setters. */
    public HomogeneousSample(Tensor ids, Tensor rows, Tensor cols) {
        this.ids = ids;
        this.rows = rows;
        this.cols = cols;
    }

    /**
     * A k-hop sample of the memory store, viewing the sampler's buffers (the sampler's scratch is encoded before
     * the next batch, never copied): per-hop edge counts while the edges are still grouped by hop (PyG's are None
     * after a subgraph type), the disjoint trees, node data, edge data and, when {@code edgeTimes} and the store
     * has a time column and edge ids, the edges' times.
     */
    public static HomogeneousSample kHop(SampledSubgraph sub, GraphStore store, boolean edgeTimes) {
        int n = sub.numNodes();
        int m = sub.numEdges();
        HomogeneousSample sample = new HomogeneousSample(nodeIds(store.ids(), sub.idsBuffer(), n),
                Tensor.ofInt64Prefix(sub.rowsBuffer(), m), Tensor.ofInt64Prefix(sub.colsBuffer(), m))
                .numSampledNodes(Tensor.ofInt64(sub.numSampledNodes()))
                .numSampledEdges(sub.edgesByHop() ? Tensor.ofInt64(sub.numSampledEdges()) : null)
                .nodeData(NodeData.gather(store.features(), sub.idsBuffer(), n, true));
        if (sub.nodeBatchBuffer() != null) {
            sample.nodeBatch(Tensor.ofInt64Prefix(sub.nodeBatchBuffer(), n));
        }
        CsrGraph graph = store.adjacency();
        boolean times = edgeTimes && graph.hasEdgeIds() && store.spec().timeColumn() != null;
        return sample.edgeData(EdgeData.gather(graph, sub.edgePositionsBuffer(), m, times));
    }

    /** A PPR sample of the memory store: node ids and data, GiGL's PPR edges, empty rows and cols. */
    public static HomogeneousSample ppr(PprSubgraph sample, GraphStore store) {
        int[] nodes = sample.ids();
        return ppr(nodeIds(store.ids(), nodes, nodes.length), sample.edgeIndex(), sample.edgeAttr())
                .nodeData(NodeData.gather(store.features(), nodes, nodes.length, true));
    }

    /**
     * A k-hop sample whose node ids are known (the partitioned store's); {@code numSampledEdges} per hop, or null
     * when the edges are not grouped by hop.
     */
    public static HomogeneousSample kHop(long[] ids, int[] rows, int[] cols, int[] numSampledNodes,
            int[] numSampledEdges) {
        return new HomogeneousSample(Tensor.ofInt64(ids), Tensor.ofInt64(rows), Tensor.ofInt64(cols))
                .numSampledNodes(Tensor.ofInt64(numSampledNodes))
                .numSampledEdges(numSampledEdges == null ? null : Tensor.ofInt64(numSampledEdges));
    }

    /** A PPR sample whose node ids are known (the partitioned store's). */
    public static HomogeneousSample ppr(long[] ids, int[] edgeIndex, double[] edgeAttr) {
        return ppr(Tensor.ofInt64(ids), edgeIndex, edgeAttr);
    }

    /** A PPR sample: {@code edgeIndex} [2, N] (seed row, then neighbour row), {@code edgeAttr} [N, 2]. */
    static HomogeneousSample ppr(Tensor ids, int[] edgeIndex, double[] edgeAttr) {
        long n = edgeIndex.length / 2;
        HomogeneousSample sample = new HomogeneousSample(ids, Tensor.ofInt64(new long[0]), Tensor.ofInt64(new long[0]));
        sample.pprEdgeIndex = Tensor.ofInt64(edgeIndex, new long[] {2, n});
        sample.pprEdgeAttr = Tensor.ofFloat64(edgeAttr, new long[] {n, 2});
        return sample;
    }

    /** The int64 ids of node indices {@code nodes[0..n)}: a view of the indices themselves when ids equal indices. */
    public static Tensor nodeIds(NodeIdMap ids, int[] nodes, int n) {
        if (ids.isIdentity()) {
            return Tensor.ofInt64Prefix(nodes, n);
        }
        long[] out = new long[n];
        long[] byIndex = ids.idsOrNull();
        for (int i = 0; i < n; i++) {
            out[i] = byIndex[nodes[i]];
        }
        return Tensor.ofInt64(out);
    }

    HomogeneousSample numSampledNodes(Tensor counts) {
        this.numSampledNodes = counts;
        return this;
    }

    HomogeneousSample numSampledEdges(Tensor counts) {
        this.numSampledEdges = counts;
        return this;
    }

    public HomogeneousSample nodeData(NodeData data) {
        this.nodeData = data;
        return this;
    }

    /** Each node's tree (disjoint samples; a link batch's pair), {@code #META.batch}. */
    public HomogeneousSample nodeBatch(int[] trees) {
        return nodeBatch(Tensor.ofInt64(trees));
    }

    HomogeneousSample nodeBatch(Tensor trees) {
        this.nodeBatch = trees;
        return this;
    }

    /**
     * The sampled edges' data as a store that answers per node has it ({@code --with-edge}), aligned with the edges:
     * each one's input row, weight (or null: no {@code efeats}) and time (or null: no {@code edge_time}).
     */
    public HomogeneousSample edgeData(long[] eids, float[] weights, long[] times) {
        return edgeData(new EdgeData(Tensor.ofInt64(eids),
                weights == null ? null : Tensor.ofFloat32(weights, new long[] {weights.length, 1}),
                times == null ? null : Tensor.ofInt64(times)));
    }

    HomogeneousSample edgeData(EdgeData data) {
        this.edgeData = data;
        return this;
    }

    HomogeneousSample pprEdges(Tensor edgeIndex, Tensor edgeAttr) {
        this.pprEdgeIndex = edgeIndex;
        this.pprEdgeAttr = edgeAttr;
        return this;
    }

    @Override
    public boolean hetero() {
        return false;
    }

    @Override
    public SampleMetadata metadata() {
        return metadata;
    }

    public Tensor ids() {
        return ids;
    }

    public Tensor rows() {
        return rows;
    }

    public Tensor cols() {
        return cols;
    }

    public Tensor numSampledNodes() {
        return numSampledNodes;
    }

    public Tensor numSampledEdges() {
        return numSampledEdges;
    }

    public NodeData nodeData() {
        return nodeData;
    }

    public Tensor nodeBatch() {
        return nodeBatch;
    }

    public EdgeData edgeData() {
        return edgeData;
    }

    public Tensor pprEdgeIndex() {
        return pprEdgeIndex;
    }

    public Tensor pprEdgeAttr() {
        return pprEdgeAttr;
    }
}
