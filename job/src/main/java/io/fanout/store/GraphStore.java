package io.fanout.store;

import io.fanout.features.NodeFeatures;
import io.fanout.features.NodeFileReader;
import io.fanout.graph.AliasTable;
import io.fanout.graph.CsrGraph;
import io.fanout.graph.GraphLoader;
import io.fanout.graph.NodeIdCollector;
import io.fanout.graph.NodeIdMap;
import io.fanout.graph.NodeIdSet;
import java.io.IOException;
import java.util.Locale;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One homogeneous graph in memory: its node ids ({@link NodeIdMap}), adjacency ({@link CsrGraph}) and, when a
 * node file was given, node features and labels ({@link NodeFeatures}), all indexed by the same node index.
 *
 * <p>A typed graph is a {@link TypedGraphStore}: the same parts per node type and per edge type. Samplers see
 * only indices and translate to ids when a message is built.
 */
public final class GraphStore implements LoadedGraph {
    private static final Logger LOG = LoggerFactory.getLogger(GraphStore.class);

    private final GraphSpec spec;
    private final NodeIdMap ids;
    private final CsrGraph adjacency;
    private final NodeFeatures features;
    /** Alias tables of the weights, when {@link GraphSpec#weightColumn()} drives sampling; else null. */
    private final AliasTable alias;

    public GraphStore(GraphSpec spec, NodeIdMap ids, CsrGraph adjacency, NodeFeatures features) {
        this(spec, ids, adjacency, features, spec.weightColumn() != null ? AliasTable.build(adjacency) : null);
    }

    private GraphStore(GraphSpec spec, NodeIdMap ids, CsrGraph adjacency, NodeFeatures features, AliasTable alias) {
        this.alias = alias;
        this.spec = Objects.requireNonNull(spec, "spec");
        this.ids = Objects.requireNonNull(ids, "ids");
        this.adjacency = Objects.requireNonNull(adjacency, "adjacency");
        this.features = features;
        if (adjacency.numNodes() != ids.size() || (features != null && features.numNodes() != ids.size())) {
            throw new IllegalArgumentException("ids, adjacency and features disagree on the node count");
        }
    }

    /**
     * Loads the edges and, when {@code spec} names one, the node file. The nodes are every id either mentions
     * (plus {@code 0..num_nodes-1} when an edge header declares it); every node needs a node-file row.
     *
     * @throws io.fanout.graph.GraphFormatException for malformed input, naming the file and line
     */
    public static GraphStore load(GraphSpec spec) throws IOException {
        long started = System.nanoTime();
        GraphLoader.EdgeList edges = GraphLoader.readEdges(spec.edges(), spec.directed(), spec.weightColumn(),
                spec.timeColumn());
        NodeIdCollector collector = new NodeIdCollector();
        NodeFileReader.NodeRows rows = null;
        if (spec.nodeFeatures() != null) {
            rows = NodeFileReader.read(spec.nodeFeatures());
            if (edges.declaredNodes() >= 0) {
                rows.checkBelow(edges.declaredNodes(), "the edge file header");
            }
            rows.collectIds(collector);
        }
        NodeIdMap ids = edges.nodeIds(collector);
        CsrGraph adjacency = edges.build(ids, spec.direction(), spec.withEdgeIds());
        if (spec.timeColumn() != null) {
            // Temporal sampling reads the neighbours up to a time as a prefix of each list (a binary search).
            adjacency = adjacency.sortedByTime();
        }
        NodeFeatures features = null;
        if (rows != null) {
            features = rows.build(ids, spec.featureDType());
            LOG.info("Loaded node file {}: {} nodes, {} features ({}, {} bytes per value{}), labels; {} heap bytes"
                            + " in {} s", spec.nodeFeatures(), features.numNodes(), features.dim(),
                    spec.featureDType().optionValue(), features.bytesPerValue(),
                    features.maxError() > 0 ? String.format(Locale.ROOT, ", max error %.3g", features.maxError()) : "",
                    features.heapBytes(), String.format(Locale.ROOT, "%.3f", (System.nanoTime() - started) / 1e9));
        }
        GraphStore store = new GraphStore(spec, ids, adjacency, features);
        if (store.alias != null) {
            LOG.info("Sampling weights from column {}: alias tables of {} edges, {} heap bytes (8 per edge)",
                    spec.weightColumn(), adjacency.numEdges(), store.alias.heapBytes());
        }
        return store;
    }

    /**
     * The node ids {@link #load} would give {@code spec}, found by a streaming scan that validates every edge and
     * node-file row as the load does but keeps only the distinct ids (a bit per id while they are dense, else 8
     * bytes per node): how the submitting client checks seeds and input without holding the graph.
     *
     * @throws io.fanout.graph.GraphFormatException for malformed input, naming the file and line
     */
    public static NodeIdMap scanNodeIds(GraphSpec spec) throws IOException {
        long started = System.nanoTime();
        NodeIdSet all = new NodeIdSet();
        long declared = GraphLoader.scanNodeIds(spec.edges(), spec.directed(), spec.weightColumn(),
                spec.timeColumn(), all);
        if (spec.nodeFeatures() == null) {
            return logScan(spec, all.toMap(), started);
        }
        NodeIdSet inFile = new NodeIdSet();
        NodeFileReader.scanIds(spec.nodeFeatures(), inFile);
        NodeIdMap fileIds = inFile.toMap();
        if (declared >= 0 && fileIds.maxId() >= declared) {
            NodeFileReader.read(spec.nodeFeatures()).checkBelow(declared, "the edge file header"); // names the line
        }
        for (int i = 0; i < fileIds.size(); i++) {
            all.add(fileIds.id(i));
        }
        NodeIdMap ids = all.toMap();
        NodeFileReader.checkCovers(spec.nodeFeatures(), ids, fileIds);
        return logScan(spec, ids, started);
    }

    private static NodeIdMap logScan(GraphSpec spec, NodeIdMap ids, long started) {
        LOG.info("Scanned {}: {} nodes ({}) in {} s, keeping {} bytes of ids", spec, ids.size(),
                ids.isIdentity() ? "ids 0.." + (ids.size() - 1) : "sparse ids",
                String.format(Locale.ROOT, "%.3f", (System.nanoTime() - started) / 1e9), ids.heapBytes());
        return ids;
    }

    public GraphSpec spec() {
        return spec;
    }

    /** The node ids, by index. */
    public NodeIdMap ids() {
        return ids;
    }

    /** The adjacency over node indices. */
    public CsrGraph adjacency() {
        return adjacency;
    }

    /** Node features and labels by index, or null when no node file was given. */
    @Override
    public NodeFeatures features() {
        return features;
    }

    /** The alias tables of the sampling weights ({@link GraphSpec#weightColumn()}), or null when unweighted. */
    public AliasTable aliasTable() {
        return alias;
    }

    @Override
    public int numNodes() {
        return ids.size();
    }

    @Override
    public long numEdges() {
        return adjacency.numEdges();
    }

    @Override
    public long structureHeapBytes() {
        return adjacency.heapBytes() + ids.heapBytes() + (alias == null ? 0 : alias.heapBytes());
    }

    /** Heap bytes of the ids, adjacency and features. */
    @Override
    public long heapBytes() {
        return ids.heapBytes() + adjacency.heapBytes() + (features == null ? 0 : features.heapBytes())
                + (alias == null ? 0 : alias.heapBytes());
    }

    @Override
    public String toString() {
        return "GraphStore{" + spec + ", " + ids + ", " + adjacency + (features != null ? ", " + features : "") + "}";
    }
}
