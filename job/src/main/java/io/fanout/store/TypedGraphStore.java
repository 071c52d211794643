package io.fanout.store;

import io.fanout.features.NodeFeatures;
import io.fanout.features.NodeFileReader;
import io.fanout.graph.AliasTable;
import io.fanout.graph.CsrGraph;
import io.fanout.graph.EdgeDirection;
import io.fanout.graph.GraphFormatException;
import io.fanout.graph.GraphLoader;
import io.fanout.graph.NodeIdCollector;
import io.fanout.graph.NodeIdMap;
import io.fanout.graph.NodeIdSet;
import io.fanout.graph.typed.EdgeType;
import io.fanout.graph.typed.NodeIdFile;
import io.fanout.graph.typed.TypedAdjacency;
import io.fanout.graph.typed.TypedGraphFiles;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * A typed (heterogeneous) graph in memory: per node type its ids ({@link NodeIdMap}) and, when its node file has
 * labels or features, {@link NodeFeatures}; per edge type a {@link TypedAdjacency} in the spec's direction.
 * The parts of a {@link GraphStore}, once per type.
 *
 * <p>Input (shared/data/README.md): a directory of {@code edges.<src>__<rel>__<dst>.tsv[.gz]} files, each in the
 * homogeneous edge-file format, and optional {@code nodes.<type>.tsv[.gz]} files: {@code id, label, f0..} rows as
 * {@code --node-features} reads, or ids only. A type's nodes are every id its edge files and node file mention,
 * plus {@code 0..num_nodes-1} when an edge file between nodes of that one type declares {@code num_nodes}; with a
 * labelled node file every node needs its row. An undirected edge file must connect nodes of one type.
 */
public final class TypedGraphStore implements LoadedGraph {
    private final GraphSpec spec;
    private final Map<String, NodeIdMap> ids;
    private final Map<String, NodeFeatures> features;
    private final Map<EdgeType, TypedAdjacency> adjacency;
    /** Per edge type, the alias tables of the sampling weights when {@link GraphSpec#weightColumn()} is set. */
    private final Map<EdgeType, AliasTable> alias;

    private TypedGraphStore(GraphSpec spec, Map<String, NodeIdMap> ids, Map<String, NodeFeatures> features,
            Map<EdgeType, TypedAdjacency> adjacency, Map<EdgeType, AliasTable> alias) {
        this.alias = Collections.unmodifiableMap(alias);
        this.spec = spec;
        this.ids = Collections.unmodifiableMap(ids);
        this.features = Collections.unmodifiableMap(features);
        this.adjacency = Collections.unmodifiableMap(adjacency);
    }

    /** True when the spec's graph is typed (its edge files are named by edge type). */
    public static boolean isTyped(GraphSpec spec) throws IOException {
        return TypedGraphFiles.isTyped(spec.edges());
    }

    /**
     * Loads every edge and node file of the typed graph {@code spec} names.
     *
     * @throws GraphFormatException for malformed input, naming the file and line
     */
    public static TypedGraphStore load(GraphSpec spec) throws IOException {
        Objects.requireNonNull(spec, "spec");
        TypedGraphFiles files = TypedGraphFiles.of(spec.edges());
        Map<String, NodeIdCollector> collectors = new TreeMap<>();
        for (String type : files.nodeTypes()) {
            collectors.put(type, new NodeIdCollector());
        }
        Map<EdgeType, GraphLoader.EdgeList> edges = new LinkedHashMap<>();
        for (Map.Entry<EdgeType, Path> e : files.edges().entrySet()) {
            EdgeType type = e.getKey();
            GraphLoader.EdgeList list = readEdgeList(spec, type, e.getValue());
            boolean oneType = type.src().equals(type.dst());
            list.collectEndpointIds(true, collectors.get(type.src()));
            list.collectEndpointIds(false, collectors.get(type.dst()));
            if (oneType && list.declaredNodes() >= 0) {
                collectors.get(type.src()).addRange(list.declaredNodes());
            }
            edges.put(type, list);
        }
        Map<String, NodeFileReader.NodeRows> rows = new TreeMap<>();
        for (Map.Entry<String, Path> e : files.nodeFiles().entrySet()) {
            NodeIdCollector collector = collectors.get(e.getKey());
            if (NodeIdFile.idsOnly(e.getValue())) {
                NodeIdFile.read(e.getValue(), collector);
            } else {
                NodeFileReader.NodeRows typeRows = NodeFileReader.read(e.getValue());
                typeRows.collectIds(collector);
                rows.put(e.getKey(), typeRows);
            }
        }
        Map<String, NodeIdMap> ids = new TreeMap<>();
        collectors.forEach((type, collector) -> ids.put(type, collector.build()));
        Map<String, NodeFeatures> features = new TreeMap<>();
        for (Map.Entry<String, NodeFileReader.NodeRows> e : rows.entrySet()) {
            features.put(e.getKey(), e.getValue().build(ids.get(e.getKey()), spec.featureDType()));
        }
        Map<EdgeType, TypedAdjacency> adjacency = new TreeMap<>();
        Map<EdgeType, AliasTable> alias = new TreeMap<>();
        for (Map.Entry<EdgeType, GraphLoader.EdgeList> e : edges.entrySet()) {
            EdgeType type = e.getKey();
            TypedAdjacency typeAdjacency = adjacency(spec, type, files.edges().get(type), e.getValue(), ids);
            adjacency.put(type, typeAdjacency);
            if (spec.weightColumn() != null) {
                alias.put(type, AliasTable.build(typeAdjacency.csr()));
            }
        }
        return new TypedGraphStore(spec, ids, features, adjacency, alias);
    }

    /**
     * One edge type's adjacency as {@link #load} builds it, reading that type's file only, against node ids the
     * caller has ({@link #scanNodeIds}: both of its node types): how a client reads ABLP's label edge types without
     * holding the graph.
     *
     * @throws GraphFormatException for malformed input, naming the file and line
     */
    public static TypedAdjacency readEdgeType(GraphSpec spec, EdgeType type, Map<String, NodeIdMap> ids)
            throws IOException {
        Path file = TypedGraphFiles.of(spec.edges()).edges().get(type);
        if (file == null) {
            throw new IllegalArgumentException("no edge type " + type + " in " + spec.edges());
        }
        return adjacency(spec, type, file, readEdgeList(spec, type, file), ids);
    }

    /** An edge type's rows, with the columns {@code spec} reads (every type's weights; times unless timeless). */
    private static GraphLoader.EdgeList readEdgeList(GraphSpec spec, EdgeType type, Path file) throws IOException {
        // Temporal sampling reads every edge type's time column except the declared timeless ones.
        String time = spec.timeColumn() != null && !spec.timelessTypes().contains(type.toString())
                ? spec.timeColumn() : null;
        GraphLoader.EdgeList list = GraphLoader.readTypedEdgeFile(file, spec.weightColumn(), time);
        if (!list.directed() && !type.src().equals(type.dst())) {
            throw new GraphFormatException(file, "directed=false between two node types (" + type.src()
                    + ", " + type.dst() + "): an undirected edge file must connect nodes of one type");
        }
        return list;
    }

    /** An edge type's adjacency in {@code spec}'s direction over the node ids of its two types. */
    private static TypedAdjacency adjacency(GraphSpec spec, EdgeType type, Path file, GraphLoader.EdgeList list,
            Map<String, NodeIdMap> ids) throws GraphFormatException {
        EdgeDirection direction = spec.direction();
        String key = direction == EdgeDirection.OUT ? type.src() : type.dst();
        String value = direction == EdgeDirection.OUT ? type.dst() : type.src();
        NodeIdMap keyIds = ids.get(key);
        NodeIdMap valueIds = ids.get(value);
        boolean oneType = key.equals(value);
        int base = oneType ? 0 : keyIds.size();
        long rowsNeeded = (long) base + valueIds.size();
        if (rowsNeeded > NodeIdMap.MAX_NODES) {
            throw new GraphFormatException(file, "node types " + key + " and " + value
                    + " hold more than " + NodeIdMap.MAX_NODES + " nodes together");
        }
        CsrGraph csr = list.buildTyped(keyIds, valueIds, base, (int) rowsNeeded, direction, spec.withEdgeIds());
        if (spec.timeColumn() != null && !spec.timelessTypes().contains(type.toString())) {
            // Temporal sampling reads the neighbours up to a time as a prefix of each list (a binary search).
            csr = csr.sortedByTime();
        }
        return new TypedAdjacency(type, key, value, csr, base);
    }

    /**
     * The ids of {@code types} that {@link #load} would give {@code spec}'s typed graph, found by a streaming scan of
     * every edge file (each row checked as the load checks it) and the types' node files, keeping only those types'
     * ids: how the submitting client plans seed batches without holding the graph.
     *
     * @throws GraphFormatException for malformed input, naming the file and line
     */
    public static Map<String, NodeIdMap> scanNodeIds(GraphSpec spec, java.util.Set<String> types) throws IOException {
        TypedGraphFiles files = TypedGraphFiles.of(spec.edges());
        // A bit per id while dense, else 8 bytes per distinct node: never per edge.
        Map<String, NodeIdSet> sets = new TreeMap<>();
        for (String type : types) {
            if (!files.nodeTypes().contains(type)) {
                throw new IllegalArgumentException("no node type " + type + " in " + files.dir());
            }
            sets.put(type, new NodeIdSet());
        }
        for (Map.Entry<EdgeType, Path> e : files.edges().entrySet()) {
            EdgeType type = e.getKey();
            String time = spec.timeColumn() != null && !spec.timelessTypes().contains(type.toString())
                    ? spec.timeColumn() : null;
            NodeIdSet src = sets.get(type.src());
            NodeIdSet dst = sets.get(type.dst());
            GraphLoader.TypedFileFacts facts = GraphLoader.streamTypedEndpointIds(e.getValue(), spec.weightColumn(),
                    time, src == null ? null : src::add, dst == null ? null : dst::add);
            boolean oneType = type.src().equals(type.dst());
            if (!facts.directed() && !oneType) {
                throw new GraphFormatException(e.getValue(), "directed=false between two node types (" + type.src()
                        + ", " + type.dst() + "): an undirected edge file must connect nodes of one type");
            }
            if (oneType && facts.declaredNodes() >= 0 && src != null) {
                src.addRange(facts.declaredNodes());
            }
        }
        for (Map.Entry<String, Path> e : files.nodeFiles().entrySet()) {
            NodeIdSet set = sets.get(e.getKey());
            if (set == null) {
                continue;
            }
            if (NodeIdFile.idsOnly(e.getValue())) {
                NodeIdCollector collector = new NodeIdCollector();
                NodeIdFile.read(e.getValue(), collector);
                NodeIdMap inFile = collector.build();
                for (int i = 0; i < inFile.size(); i++) {
                    set.add(inFile.id(i));
                }
            } else {
                NodeFileReader.streamIds(e.getValue(), set::add);
            }
        }
        Map<String, NodeIdMap> ids = new TreeMap<>();
        sets.forEach((type, set) -> ids.put(type, set.toMap()));
        return ids;
    }

    public GraphSpec spec() {
        return spec;
    }

    /** Node type -> its ids by index, every node type of the graph, in name order. */
    public Map<String, NodeIdMap> nodeIds() {
        return ids;
    }

    /** The ids of one node type, or null when the graph has no such type. */
    public NodeIdMap nodeIds(String type) {
        return ids.get(type);
    }

    /** The features and labels of one node type, or null when it has no labelled node file. */
    public NodeFeatures features(String type) {
        return features.get(type);
    }

    /** The alias tables of one edge type's sampling weights, or null when sampling is uniform. */
    public AliasTable aliasTable(EdgeType type) {
        return alias.get(type);
    }

    /** Edge type -> adjacency in the spec's direction, in edge-type name order. */
    public Map<EdgeType, TypedAdjacency> adjacency() {
        return adjacency;
    }

    @Override
    public int numNodes() {
        long n = 0;
        for (NodeIdMap m : ids.values()) {
            n += m.size();
        }
        return (int) Math.min(n, Integer.MAX_VALUE);
    }

    @Override
    public long numEdges() {
        long m = 0;
        for (TypedAdjacency a : adjacency.values()) {
            m += a.csr().numEdges();
        }
        return m;
    }

    @Override
    public long structureHeapBytes() {
        long bytes = 0;
        for (NodeIdMap m : ids.values()) {
            bytes += m.heapBytes();
        }
        for (TypedAdjacency a : adjacency.values()) {
            bytes += a.csr().heapBytes();
        }
        return bytes;
    }

    @Override
    public long heapBytes() {
        long bytes = structureHeapBytes();
        for (AliasTable a : alias.values()) {
            bytes += a.heapBytes();
        }
        for (NodeFeatures f : features.values()) {
            bytes += f.heapBytes();
        }
        return bytes;
    }

    /** Null: a typed graph's features are per node type ({@link #features(String)}). */
    @Override
    public NodeFeatures features() {
        return null;
    }

    /** The node types, in name order. */
    public List<String> nodeTypes() {
        return new ArrayList<>(ids.keySet());
    }

    @Override
    public String toString() {
        return "TypedGraphStore{" + spec + ", node types " + ids.keySet() + ", edge types " + adjacency.keySet() + "}";
    }
}
