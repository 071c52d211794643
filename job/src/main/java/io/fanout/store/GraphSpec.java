package io.fanout.store;

import io.fanout.features.FeatureDType;
import io.fanout.graph.EdgeDirection;
import java.io.Serializable;
import java.nio.file.Path;
import java.util.Objects;

/**
 * What to load into a {@link GraphStore}: the edge files, the direction to expand in, the node file and its
 * dtype, and whether to keep edge ids. Serializable, so operators carry it to the TaskManagers, and the key of
 * {@link SharedGraphs}.
 */
public final class GraphSpec implements Serializable {
    private static final long serialVersionUID = 1L;

    private final String edges;
    private final EdgeDirection direction;
    private final String nodeFeatures;
    private final FeatureDType featureDType;
    private final boolean withEdgeIds;
    /** Option fanout.directed for edge files without a directed= header, or null: their headers must say. */
    private final Boolean directed;
    /** The edge column whose weights drive sampling, or null for uniform sampling. */
    private final String weightColumn;
    /** The timestamp column temporal sampling uses (adjacency sorted by it at load), or null. */
    private final String timeColumn;
    /** Typed temporal sampling: edge types (src__rel__dst, sorted, comma-joined) without a time column, or null. */
    private final String timelessTypes;
    /** {@link #timelessTypes} parsed, on first use (not serialised: the string is). */
    private transient java.util.SortedSet<String> timelessSet;
    /** Bytes per range a streamed load reads of a large edge part ({@code --store partitioned}). */
    private final long splitBytes;
    /**
     * One edge type's file of a typed graph, read as a plain graph (the partitioned store loads a typed graph type by
     * type); the homogeneous loader refuses a typed edge file otherwise. Set last ({@link #withTypedPart}).
     */
    private boolean typedPart;
    /** Default {@link #splitBytes}: 16 MiB (a range of R-MAT ids is about 0.8 M rows, seconds to read). */
    public static final long DEFAULT_SPLIT_BYTES = 16L << 20;

    /**
     * @param edges an edge file or a directory of edge-file parts
     * @param direction the adjacency to build
     * @param nodeFeatures a node file or directory of parts ({@code nodes.tsv}: id, label, features), or null
     * @param featureDType how features are stored and shipped
     * @param withEdgeIds keep every stored edge's stable id (its input row)
     */
    public GraphSpec(String edges, EdgeDirection direction, String nodeFeatures, FeatureDType featureDType,
            boolean withEdgeIds) {
        this(edges, direction, nodeFeatures, featureDType, withEdgeIds, null, null, null, null, DEFAULT_SPLIT_BYTES);
    }

    private GraphSpec(String edges, EdgeDirection direction, String nodeFeatures, FeatureDType featureDType,
            boolean withEdgeIds, Boolean directed, String weightColumn, String timeColumn, String timelessTypes,
            long splitBytes) {
        this.timelessTypes = timelessTypes;
        if (splitBytes < 1) {
            throw new IllegalArgumentException("split size must be >= 1 byte, got " + splitBytes);
        }
        this.splitBytes = splitBytes;
        this.weightColumn = weightColumn;
        this.timeColumn = timeColumn;
        this.edges = Objects.requireNonNull(edges, "edges");
        this.direction = Objects.requireNonNull(direction, "direction");
        this.nodeFeatures = nodeFeatures;
        this.featureDType = Objects.requireNonNull(featureDType, "featureDType");
        this.withEdgeIds = withEdgeIds;
        this.directed = directed;
    }

    /** The edges only, no node file, no edge ids. */
    public static GraphSpec edges(Path edges, EdgeDirection direction) {
        return new GraphSpec(edges.toString(), direction, null, FeatureDType.FLOAT32, false);
    }

    public Path edges() {
        return Path.of(edges);
    }

    public EdgeDirection direction() {
        return direction;
    }

    /** The node file, or null. */
    public Path nodeFeatures() {
        return nodeFeatures == null ? null : Path.of(nodeFeatures);
    }

    public FeatureDType featureDType() {
        return featureDType;
    }

    public boolean withEdgeIds() {
        return withEdgeIds;
    }

    /** This spec with the directedness of edge files that have no directed= header (null: they must have one). */
    public GraphSpec withDirected(Boolean directed) {
        return keepPart(new GraphSpec(edges, direction, nodeFeatures, featureDType, withEdgeIds, directed, weightColumn, timeColumn, timelessTypes, splitBytes));
    }

    /**
     * This spec sampling in proportion to the weights of {@code column} (a {@code columns=} name; validated at
     * load, alias tables built), or uniformly when null.
     */
    public GraphSpec withWeightColumn(String column) {
        return keepPart(new GraphSpec(edges, direction, nodeFeatures, featureDType, withEdgeIds, directed, column, timeColumn, timelessTypes, splitBytes));
    }

    /** This spec for temporal sampling by {@code column} (a {@code columns=} name; edges sorted by it), or none when null. */
    public GraphSpec withTimeColumn(String column) {
        return keepPart(new GraphSpec(edges, direction, nodeFeatures, featureDType, withEdgeIds, directed, weightColumn, column, timelessTypes, splitBytes));
    }

    /**
     * This spec with edge parts larger than {@code bytes} read as ranges of that size by a streamed load
     * ({@link io.fanout.graph.GraphLoader#edgeSplits}); the in-memory load reads whole files either way.
     */
    public GraphSpec withSplitBytes(long bytes) {
        return keepPart(new GraphSpec(edges, direction, nodeFeatures, featureDType, withEdgeIds, directed, weightColumn, timeColumn, timelessTypes, bytes));
    }

    /**
     * This typed spec with the edge types ({@code src__rel__dst}) that temporal sampling follows at any time: their
     * files have no time column (option fanout.timeless-edge-types); empty or null for none.
     */
    public GraphSpec withTimelessTypes(java.util.Collection<String> types) {
        String joined = types == null || types.isEmpty() ? null : String.join(",", new java.util.TreeSet<>(types));
        return keepPart(new GraphSpec(edges, direction, nodeFeatures, featureDType, withEdgeIds, directed, weightColumn, timeColumn,
                joined, splitBytes));
    }

    /** {@code copy} keeping this spec's {@link #typedPart} flag: every {@code with} keeps it, in any order. */
    private GraphSpec keepPart(GraphSpec copy) {
        copy.typedPart = typedPart;
        return copy;
    }

    /** This spec naming one edge type's file of a typed graph, to be read as a plain graph's one part. */
    public GraphSpec withTypedPart() {
        GraphSpec out = withSplitBytes(splitBytes);
        out.typedPart = true;
        return out;
    }

    /** Whether {@link #edges} is one edge type's file of a typed graph ({@link #withTypedPart}). */
    public boolean typedPart() {
        return typedPart;
    }

    /** The edge types declared timeless ({@link #withTimelessTypes}), in name order; empty for none. */
    public java.util.SortedSet<String> timelessTypes() {
        // Parsed once: a typed temporal message asks for it per edge type.
        if (timelessSet == null) {
            timelessSet = java.util.Collections.unmodifiableSortedSet(timelessTypes == null ? new java.util.TreeSet<>()
                    : new java.util.TreeSet<>(java.util.Arrays.asList(timelessTypes.split(","))));
        }
        return timelessSet;
    }

    /** Bytes per range of a streamed load's edge split. */
    public long splitBytes() {
        return splitBytes;
    }

    /** The timestamp column temporal sampling uses, or null. */
    public String timeColumn() {
        return timeColumn;
    }

    /** The weight column that drives sampling, or null. */
    public String weightColumn() {
        return weightColumn;
    }

    /** Whether the edges are directed where the edge files do not say, or null. */
    public Boolean directed() {
        return directed;
    }

    /** The same spec with both paths made canonical (symbolic links and {@code ..} resolved): the cache key. */
    GraphSpec canonical() throws java.io.IOException {
        return new GraphSpec(edges().toRealPath().toString(), direction,
                nodeFeatures == null ? null : nodeFeatures().toRealPath().toString(), featureDType, withEdgeIds,
                directed, weightColumn, timeColumn, timelessTypes, splitBytes);
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof GraphSpec)) {
            return false;
        }
        GraphSpec s = (GraphSpec) o;
        return edges.equals(s.edges) && direction == s.direction && Objects.equals(nodeFeatures, s.nodeFeatures)
                && featureDType == s.featureDType && withEdgeIds == s.withEdgeIds && Objects.equals(directed, s.directed)
                && Objects.equals(weightColumn, s.weightColumn) && Objects.equals(timeColumn, s.timeColumn)
                && Objects.equals(timelessTypes, s.timelessTypes)
                && splitBytes == s.splitBytes && typedPart == s.typedPart;
    }

    @Override
    public int hashCode() {
        return Objects.hash(edges, direction, nodeFeatures, featureDType, withEdgeIds, directed, weightColumn, timeColumn, timelessTypes, splitBytes, typedPart);
    }

    @Override
    public String toString() {
        return edges + " (" + direction + (nodeFeatures != null ? ", nodes " + nodeFeatures + " as "
                + featureDType.optionValue() : "") + (withEdgeIds ? ", edge ids" : "")
                + (directed != null ? ", directed=" + directed : "")
                + (weightColumn != null ? ", weighted by " + weightColumn : "")
                + (timeColumn != null ? ", sorted by " + timeColumn : "")
                + (timelessTypes != null ? ", timeless " + timelessTypes : "") + ")";
    }
}
