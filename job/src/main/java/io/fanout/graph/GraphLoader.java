package io.fanout.graph;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Loads a homogeneous edge-list graph (one file, or a directory of parts) into a {@link CsrGraph}.
 *
 * <p>The format is the one of {@code shared/data/README.md}:
 * <ul>
 *   <li>Input: a file, or a directory whose {@code edges*.tsv} / {@code edges*.tsv.gz} files are the parts of
 *       one graph, read in sorted file-name order (plain string order: {@code edges.10.tsv} sorts before
 *       {@code edges.2.tsv}). Typed edge files ({@code edges.<src>__<rel>__<dst>.tsv}) are rejected here:
 *       a typed graph is read file by file ({@link #readTypedEdgeFile}, {@code io.fanout.store.TypedGraphStore}). {@code nodes*.tsv}, {@code node_ids.tsv} etc. are ignored.
 *       Gzip is detected by its magic bytes.</li>
 *   <li>Line 1 may be a {@code #} header of {@code key=value} pairs: {@code directed=true|false} (required
 *       unless the caller gives the directedness; the two must agree), {@code columns=src,dst[,weight][,timestamp]}
 *       (default: from the first data row's field count, 2 to 4), {@code num_nodes=N}, {@code id_base=B} (ids in
 *       the file are {@code B}-based; {@code B} is
 *       subtracted, so stored ids are always 0-based) and {@code num_edges=} (a capacity hint; a mismatch is
 *       logged). Later parts without a header inherit these; parts that declare them must agree.
 *       Every other line starting with {@code #} is skipped.</li>
 *   <li>Rows: fields separated by runs of tabs or spaces (a trailing CR is ignored). Ids are decimal,
 *       non-negative int64 values and, when declared, below {@code num_nodes}; they may be sparse (see
 *       {@link NodeIdMap}). Weights are
 *       decimal floats (stored as {@code float}), timestamps whole int64 numbers. A blank line is an error:
 *       nothing but {@code #} lines is ever skipped.</li>
 *   <li>An undirected row {@code (a, b)} is stored as a -> b and b -> a, a self-loop once. Self-loops and
 *       parallel edges are kept. {@link EdgeDirection#OUT} lists src -> dst, {@link EdgeDirection#IN}
 *       dst -> src. Each node's neighbours keep file order, so a load is deterministic.</li>
 *   <li>Nodes: every id an edge mentions, plus {@code 0..num_nodes-1} when a header declares {@code num_nodes}
 *       (those never mentioned are isolated nodes); other ids are not nodes, so sparse ids cost nothing.</li>
 * </ul>
 * Every violation is a {@link GraphFormatException} naming the file and 1-based line.
 */
public final class GraphLoader {
    static final Logger LOG = LoggerFactory.getLogger(GraphLoader.class);

    /** Most nodes a store holds: the offsets array (numNodes + 1 ints) must fit a Java array. */
    public static final int MAX_NODES = NodeIdMap.MAX_NODES;
    /** Most directed edges the int32 store holds (2^31 - 9, the largest safe Java array). */
    public static final int MAX_EDGES = Integer.MAX_VALUE - 8;

    private GraphLoader() {
    }

    /**
     * Loads {@code graph} (an edge file or a directory of edge-file parts) as adjacency in {@code direction}; the
     * nodes are the ids the edges mention plus {@code 0..num_nodes-1} when a header declares {@code num_nodes}
     * (see {@link #readEdges} and {@link EdgeList#nodeIds}).
     *
     * @throws GraphFormatException for malformed input, naming the file and line
     * @throws NoSuchFileException if {@code graph} does not exist
     */
    public static CsrGraph load(Path graph, EdgeDirection direction) throws IOException {
        return load(graph, direction, null);
    }

    /**
     * Loads {@code graph} as {@link #load(Path, EdgeDirection)} does, with {@code directed} (option
     * {@code fanout.directed}) for files whose header does not say; null requires the header.
     *
     * @throws GraphFormatException also when neither says, or when a header disagrees with {@code directed}
     */
    public static CsrGraph load(Path graph, EdgeDirection direction, Boolean directed) throws IOException {
        EdgeList edges = readEdges(graph, directed);
        return edges.build(edges.nodeIds(new NodeIdCollector()), direction, false);
    }

    /**
     * Reads every edge row of {@code graph} (an edge file or a directory of parts) into memory, ids as written
     * (int64); {@link EdgeList#build} turns them into a CSR once the graph's node ids are known.
     *
     * @throws GraphFormatException for malformed input, naming the file and line
     * @throws NoSuchFileException if {@code graph} does not exist
     */
    public static EdgeList readEdges(Path graph) throws IOException {
        return readEdges(graph, null);
    }

    /**
     * {@link #readEdges(Path)} with {@code directed} for files whose header does not say (null: the header must).
     *
     * @throws GraphFormatException also when neither says, or when a header disagrees with {@code directed}
     */
    public static EdgeList readEdges(Path graph, Boolean directed) throws IOException {
        return readEdges(graph, directed, null, null);
    }

    /**
     * Reads one edge file of a typed graph ({@code edges.<src>__<rel>__<dst>.tsv[.gz]}, its header saying
     * {@code directed=}), as {@link #readEdges} reads a homogeneous graph; {@link EdgeList#buildTyped} builds its
     * adjacency between two node types.
     */
    public static EdgeList readTypedEdgeFile(Path file) throws IOException {
        return readTypedEdgeFile(file, null, null);
    }

    /**
     * The per-edge columns after {@code src,dst} that line 1 of {@code file} declares ({@code columns=}), e.g.
     * {@code [weight, timestamp]}; empty when it declares none. Reads the header only.
     *
     * @throws GraphFormatException for a malformed header, naming the file
     */
    public static List<String> headerColumns(Path file) throws IOException {
        try (java.io.BufferedReader in = new java.io.BufferedReader(new java.io.InputStreamReader(GraphFiles.open(file),
                StandardCharsets.UTF_8))) {
            String line = in.readLine();
            if (line != null && line.startsWith("\uFEFF")) {
                line = line.substring(1); // a UTF-8 byte-order mark
            }
            if (line == null || !line.startsWith("#")) {
                return List.of();
            }
            EdgeFileHeader header = EdgeFileHeader.parse(line, file);
            List<String> out = new java.util.ArrayList<>();
            if (header.extras != null) {
                for (EdgeFileHeader.Column c : header.extras) {
                    out.add(c.label());
                }
            }
            return out;
        }
    }

    /**
     * As {@link #readTypedEdgeFile(Path)}, requiring the weight column that drives sampling and the time column of
     * temporal sampling (each null when not used for this edge type), as {@link #readEdges(Path, Boolean, String,
     * String)} does; an error names the file and the option.
     */
    public static EdgeList readTypedEdgeFile(Path file, String weightColumn, String timeColumn) throws IOException {
        return readEdges(file, List.of(file), null, weightColumn, timeColumn);
    }

    /**
     * As {@link #readEdges(Path, Boolean)}; with a {@code weightColumn} (option {@code fanout.weight-column}) the
     * weights drive sampling, so the files must have that column and every weight must be {@code >= 0}, and
     * {@link EdgeList#build} checks that every node with neighbours has a positive weight sum.
     *
     * @param weightColumn the name of the weight column in the {@code columns=} header, or null
     * @param timeColumn the name of the timestamp column temporal sampling uses (it must exist), or null
     * @throws GraphFormatException for malformed input or a missing or negative weight, naming the file and line
     */
    public static EdgeList readEdges(Path graph, Boolean directed, String weightColumn, String timeColumn)
            throws IOException {
        return readEdges(graph, edgeFiles(graph), directed, weightColumn, timeColumn);
    }

    private static EdgeList readEdges(Path graph, List<Path> files, Boolean directed, String weightColumn,
            String timeColumn) throws IOException {
        long started = System.nanoTime();
        EdgeFileReader.Settings settings = new EdgeFileReader.Settings();
        settings.directedOption = directed;
        settings.weightColumn = weightColumn;
        settings.timeColumn = timeColumn;
        long rows = 0;
        for (Path file : files) {
            rows += new EdgeFileReader(file, settings).read();
        }
        if (rows == 0 || settings.staging == null) {
            throw new GraphFormatException(graph, "empty graph: no edge rows in " + describe(files));
        }
        return new EdgeList(files, settings, rows, started);
    }

    /**
     * Validates every edge row of {@code graph} as {@link #readEdges} does but keeps only the node ids, in
     * {@code ids} (with {@code 0..num_nodes-1} when a header declares it): what a client needs to check seeds
     * without holding the graph. Returns the {@code num_nodes} a header declared, or -1. {@code directed} is
     * checked against the headers as {@link #readEdges(Path, Boolean)} does.
     *
     * @throws GraphFormatException for malformed input, naming the file and line
     */
    public static long scanNodeIds(Path graph, Boolean directed, NodeIdSet ids) throws IOException {
        return scanNodeIds(graph, directed, null, null, ids);
    }

    /**
     * As {@link #scanNodeIds(Path, Boolean, NodeIdSet)}, also checking the weight column as
     * {@link #readEdges(Path, Boolean, String, String)} does row by row (the per-node weight sums need the whole graph:
     * the load checks those).
     */
    public static long scanNodeIds(Path graph, Boolean directed, String weightColumn, String timeColumn,
            NodeIdSet ids) throws IOException {
        long declared = streamNodeIds(graph, directed, weightColumn, timeColumn, ids::add);
        if (declared >= 0) {
            ids.addRange(declared);
        }
        return declared;
    }

    /**
     * As {@link #scanNodeIds(Path, Boolean, String, String, NodeIdSet)}, handing both ends of every row to
     * {@code ids} as read (nothing kept); the declared {@code num_nodes} (ids {@code 0..num_nodes-1} are nodes too)
     * is returned, not added.
     */
    public static long streamNodeIds(Path graph, Boolean directed, String weightColumn, String timeColumn,
            java.util.function.LongConsumer ids) throws IOException {
        List<Path> files = edgeFiles(graph);
        EdgeFileReader.Settings settings = new EdgeFileReader.Settings();
        settings.directedOption = directed;
        settings.weightColumn = weightColumn;
        settings.timeColumn = timeColumn;
        settings.rows = (src, dst, weight, timestamp, row) -> {
            ids.accept(src);
            ids.accept(dst);
        };
        long rows = 0;
        for (Path file : files) {
            rows += new EdgeFileReader(file, settings).read();
        }
        if (rows == 0) {
            throw new GraphFormatException(graph, "empty graph: no edge rows in " + describe(files));
        }
        return settings.numNodes;
    }

    /**
     * The {@code num_nodes} that every edge part of {@code graph} declares in its header (all the same), or -1 when a
     * part declares none. Then a load checks every id of every part against it, so the graph's node ids are exactly
     * {@code 0..num_nodes-1} without reading a row: what a client needs to know of a graph too large to scan. Reads
     * each part's header (checked and merged as a load does: {@code directed}, {@code columns}, {@code num_nodes})
     * and, until one is found, up to a part's first row.
     *
     * @throws GraphFormatException for a bad or disagreeing header, or when no part has an edge row
     */
    public static long declaredNodeRange(Path graph, Boolean directed) throws IOException {
        List<Path> files = edgeFiles(graph);
        EdgeFileReader.Settings settings = new EdgeFileReader.Settings();
        settings.directedOption = directed;
        settings.rows = (src, dst, weight, timestamp, row) -> { };
        boolean anyRow = false;
        for (Path file : files) {
            if (new EdgeFileReader(file, settings).readHeader().numNodes < 0) {
                return -1;
            }
            anyRow = anyRow || hasRow(file);
        }
        if (!anyRow) {
            throw new GraphFormatException(graph, "empty graph: no edge rows in " + describe(files));
        }
        return settings.numNodes;
    }

    /** Whether {@code file} has a line that is neither a comment nor blank (read up to the first such line). */
    private static boolean hasRow(Path file) throws IOException {
        try (java.io.BufferedReader in = new java.io.BufferedReader(new java.io.InputStreamReader(
                GraphFiles.open(file), java.nio.charset.StandardCharsets.UTF_8))) {
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                if (!line.startsWith("#") && !line.isBlank()) {
                    return true;
                }
            }
            return false;
        }
    }

    /**
     * Streams one typed edge file's endpoint ids, checking every row as {@link #readTypedEdgeFile(Path, String,
     * String)} does without keeping the edges: each source id to {@code srcIds}, each destination id to
     * {@code dstIds} (either may be null). Returns the facts of its header: {@code num_nodes} (or -1) and whether it
     * is directed.
     *
     * @throws GraphFormatException for malformed input, naming the file and line
     */
    public static TypedFileFacts streamTypedEndpointIds(Path file, String weightColumn, String timeColumn,
            java.util.function.LongConsumer srcIds, java.util.function.LongConsumer dstIds) throws IOException {
        EdgeFileReader.Settings settings = new EdgeFileReader.Settings();
        settings.weightColumn = weightColumn;
        settings.timeColumn = timeColumn;
        settings.rows = (src, dst, weight, timestamp, row) -> {
            if (srcIds != null) {
                srcIds.accept(src);
            }
            if (dstIds != null) {
                dstIds.accept(dst);
            }
        };
        new EdgeFileReader(file, settings).read();
        return new TypedFileFacts(settings.directed, settings.numNodes);
    }

    /** A streamed typed edge file's header facts: directed or not, and its {@code num_nodes} (or -1). */
    public record TypedFileFacts(boolean directed, long declaredNodes) {}

    /** One stored (directed) edge of a streamed read: what a partitioned store receives per row. */
    @FunctionalInterface
    public interface EdgeConsumer {
        /**
         * @param node the node whose neighbour list the edge belongs to (src for OUT, dst for IN)
         * @param neighbor the other end
         * @param order the edge's place in {@code node}'s list: file index << 40 | its line's byte offset in the
         *     file, so sorting by it gives the in-memory store's order
         */
        void accept(long node, long neighbor, long order) throws IOException;
    }

    /**
     * {@link EdgeConsumer} with the row's weight ({@code fanout.weight-column}; 1 without) and time
     * ({@code fanout.time-column}; 0 without), validated as a load does.
     */
    @FunctionalInterface
    public interface EdgeRowConsumer {
        void accept(long node, long neighbor, long order, float weight, long time) throws IOException;
    }

    /**
     * A byte range of edge part {@code file} (an index into {@link #edgeFiles}): the rows whose lines start at an
     * offset in {@code [start, end)}. The ranges of {@link #edgeSplits} tile each part, so a large part loads in
     * parallel and in pieces.
     */
    public record EdgeSplit(int file, long start, long end) implements java.io.Serializable {
        @Override
        public String toString() {
            return "part " + file + (start == 0 && end == Long.MAX_VALUE ? "" : " bytes [" + start + ", "
                    + (end == Long.MAX_VALUE ? "end" : String.valueOf(end)) + ")");
        }
    }

    /** Order keys hold a row's byte offset in 40 bits: a part may hold up to 1 TiB (uncompressed). */
    static final long MAX_PART_BYTES = 1L << 40;

    /**
     * The graph's edge parts cut into ranges of about {@code splitBytes} (a line belongs to the range it starts
     * in); a compressed part is one range (it cannot be entered in the middle). Reads file sizes (and each plain
     * part's first bytes, for a byte-order mark) only.
     */
    public static List<EdgeSplit> edgeSplits(Path graph, long splitBytes) throws IOException {
        return edgeSplits(graph, splitBytes, false);
    }

    /** As above; {@code typedPart}: {@code graph} is one edge type's file of a typed graph ({@link #edgeFiles(Path, boolean)}). */
    public static List<EdgeSplit> edgeSplits(Path graph, long splitBytes, boolean typedPart) throws IOException {
        if (splitBytes < 1) {
            throw new IllegalArgumentException("split size must be >= 1 byte, got " + splitBytes);
        }
        List<Path> files = edgeFiles(graph, typedPart);
        List<EdgeSplit> splits = new java.util.ArrayList<>();
        for (int i = 0; i < files.size(); i++) {
            if (GraphFiles.isCompressed(files.get(i))) {
                splits.add(new EdgeSplit(i, 0, Long.MAX_VALUE));
                continue;
            }
            long size = GraphFiles.textSize(files.get(i)); // offsets are into the text, after a byte-order mark
            if (size <= splitBytes) {
                splits.add(new EdgeSplit(i, 0, Long.MAX_VALUE));
                continue;
            }
            for (long start = 0; start < size; start += splitBytes) {
                splits.add(new EdgeSplit(i, start, start + splitBytes >= size ? Long.MAX_VALUE : start + splitBytes));
            }
        }
        return splits;
    }

    /**
     * Streams the stored edges of one range of one part of {@code graph} ({@link #edgeSplits}) in
     * {@code direction}, validating every row as a load does: an undirected row gives both directions, a
     * self-loop one. Earlier parts' headers are read so the part inherits their settings; {@code directed} is the
     * {@code fanout.directed} option or null. Each edge's order key is its part's index << 40 | its line's byte
     * offset, so sorting a node's edges by it gives the in-memory store's order. Returns the rows read.
     */
    public static long streamEdges(Path graph, Boolean directed, EdgeSplit split, EdgeDirection direction,
            EdgeConsumer out) throws IOException {
        return streamEdges(graph, false, directed, split, direction, out);
    }

    /** As above; {@code typedPart}: {@code graph} is one edge type's file of a typed graph ({@link #edgeFiles(Path, boolean)}). */
    public static long streamEdges(Path graph, boolean typedPart, Boolean directed, EdgeSplit split,
            EdgeDirection direction, EdgeConsumer out) throws IOException {
        return streamEdges(graph, typedPart, directed, split, direction, null, null,
                (node, neighbor, order, weight, time) -> out.accept(node, neighbor, order));
    }

    /**
     * As above, with each row's weight from column {@code weightColumn} (required in the header, every weight
     * {@code >= 0}, as {@link #readEdges(Path, Boolean, String, String)} checks), or null for none (weight 1), and its
     * time from column {@code timeColumn} (required in the header), or null for none.
     */
    public static long streamEdges(Path graph, boolean typedPart, Boolean directed, EdgeSplit split,
            EdgeDirection direction, String weightColumn, String timeColumn, EdgeRowConsumer out) throws IOException {
        List<Path> files = edgeFiles(graph, typedPart);
        Path file = files.get(split.file());
        EdgeFileReader.Settings settings = new EdgeFileReader.Settings();
        settings.directedOption = directed;
        settings.weightColumn = weightColumn;
        settings.timeColumn = timeColumn;
        // Earlier parts are read for their headers only; with a row sink set nothing is staged (no sink would
        // allocate staging arrays of a header's num_edges: gigabytes for a big part, on a TaskManager's heap).
        settings.rows = (src, dst, weight, timestamp, row) -> { };
        for (int i = 0; i < split.file(); i++) {
            new EdgeFileReader(files.get(i), settings).readHeader();
        }
        long base = (long) split.file() << 40;
        settings.rows = (src, dst, weight, timestamp, offset) -> {
            if (offset >= MAX_PART_BYTES) {
                throw new GraphFormatException(file, "an edge part may hold up to 1 TiB (uncompressed) for"
                        + " --store partitioned; split it into more parts");
            }
            boolean undirected = !settings.directed;
            long from = direction == EdgeDirection.OUT ? src : dst;
            long to = direction == EdgeDirection.OUT ? dst : src;
            out.accept(from, to, base | offset, weight, timestamp);
            if (undirected && src != dst) {
                out.accept(to, from, base | offset, weight, timestamp);
            }
        };
        return new EdgeFileReader(file, settings).readRange(split.start(), split.end());
    }

    /**
     * Each split's first input row: the data rows of the splits before it ({@code splits} in file and offset order,
     * as {@link #edgeSplits} gives them), so a split's reader numbers its rows as a whole load does (0-based, over all
     * parts in name order: {@link CsrGraph#edgeIds()}). One streaming pass over the edge files, its splits counted in
     * parallel, each row checked as the load checks it; nothing is kept but the counts.
     *
     * @throws GraphFormatException for malformed input, naming the file and line
     */
    public static long[] splitFirstRows(Path graph, boolean typedPart, Boolean directed, List<EdgeSplit> splits,
            String weightColumn, String timeColumn) throws IOException {
        long[] rows = new long[splits.size()];
        try {
            java.util.stream.IntStream.range(0, splits.size()).parallel().forEach(i -> {
                try {
                    rows[i] = streamEdges(graph, typedPart, directed, splits.get(i), EdgeDirection.OUT, weightColumn,
                            timeColumn, (node, neighbor, order, weight, time) -> { });
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            });
        } catch (java.io.UncheckedIOException e) {
            throw e.getCause();
        }
        long[] first = new long[splits.size()];
        for (int i = 1; i < first.length; i++) {
            first[i] = Math.addExact(first[i - 1], rows[i - 1]);
        }
        return first;
    }

    /**
     * Whether the edge rows have a weight column (named in a {@code columns=} header, or a third field in the first
     * row), whichever column {@code fanout.weight-column} names: the in-memory store keeps such a column's values, and
     * {@code --with-edge} sends them as {@code efeats}.
     */
    public static boolean hasWeightColumn(Path graph, boolean typedPart, Boolean directed) throws IOException {
        EdgeFileReader.Settings settings = new EdgeFileReader.Settings();
        settings.directedOption = directed;
        settings.rows = (src, dst, weight, timestamp, row) -> { };
        for (Path file : edgeFiles(graph, typedPart)) {
            EdgeFileHeader.Column[] columns = new EdgeFileReader(file, settings).columns();
            if (columns != null) {
                return java.util.Arrays.asList(columns).contains(EdgeFileHeader.Column.WEIGHT);
            }
        }
        return false;
    }

    /** What an update stream needs of a graph's edge files: whether rows are undirected, and the first part's id_base. */
    public record HeaderFacts(boolean directed, long idBase) implements java.io.Serializable {}

    /**
     * The directedness and id_base of {@code graph}, from the first edge part's header (or the
     * {@code fanout.directed} option {@code directed}), as a load would establish them; reads one line.
     */
    public static HeaderFacts headerFacts(Path graph, Boolean directed) throws IOException {
        EdgeFileReader.Settings settings = new EdgeFileReader.Settings();
        settings.directedOption = directed;
        settings.rows = (src, dst, weight, timestamp, row) -> { };
        new EdgeFileReader(edgeFiles(graph).get(0), settings).readHeader();
        return new HeaderFacts(Boolean.TRUE.equals(settings.directed), settings.idBase);
    }

    /** The edge rows of one graph as read, before they become a {@link CsrGraph}. */
    public static final class EdgeList {
        private final List<Path> files;
        private final String source;
        private final EdgeFileReader.Settings settings;
        private final long rows;
        private final long started;

        private EdgeList(List<Path> files, EdgeFileReader.Settings settings, long rows, long started) {
            this.files = files;
            this.source = describe(files);
            this.settings = settings;
            this.rows = rows;
            this.started = started;
        }

        /** Number of edge rows read (an undirected row counts once). */
        public long rows() {
            return rows;
        }

        public boolean directed() {
            return settings.directed;
        }

        /** The {@code num_nodes} an edge header declared, or -1. */
        public long declaredNodes() {
            return settings.numNodes;
        }

        /**
         * Adds the graph's node ids to {@code ids} (every endpoint, and {@code 0..num_nodes-1} when declared)
         * and returns the map of everything {@code ids} collected.
         */
        public NodeIdMap nodeIds(NodeIdCollector ids) {
            settings.staging.collectIds(ids);
            if (settings.numNodes >= 0) {
                ids.addRange(settings.numNodes);
            }
            return ids.build();
        }

        /** Adds every source id (or, {@code sources} false, every destination id) to {@code ids}. */
        public void collectEndpointIds(boolean sources, NodeIdCollector ids) {
            settings.staging.collectEndpointIds(sources, ids);
        }

        /**
         * Builds a typed graph's adjacency in {@code direction} from the nodes of one type to those of another (or
         * the same): the rows are {@code keyNodes}' indices; a neighbour of {@code valueNodes} is stored as
         * {@code valueBase} + its index, so that a sampler can keep both types in one index space.
         */
        public CsrGraph buildTyped(NodeIdMap keyNodes, NodeIdMap valueNodes, int valueBase, int numRows,
                EdgeDirection direction, boolean keepEdgeIds) throws GraphFormatException {
            CsrGraph csr = settings.staging.build(keyNodes, valueNodes, valueBase, numRows, !settings.directed,
                    direction, keepEdgeIds);
            if (settings.weightColumn != null) {
                checkTypedWeightSums(csr, keyNodes, valueBase == 0 ? csr.numNodes() : valueBase);
            }
            logLoad(csr, keyNodes.heapBytes(), direction);
            return csr;
        }

        /** As {@link GraphLoader#checkWeightSums} for a typed adjacency's key rows, naming the node and file. */
        private void checkTypedWeightSums(CsrGraph csr, NodeIdMap keyNodes, int keyRows) throws GraphFormatException {
            float[] w = csr.weights();
            for (int v = 0; v < keyRows; v++) {
                double sum = 0;
                for (int i = csr.start(v); i < csr.end(v); i++) {
                    sum += w[i];
                }
                if (csr.degree(v) > 0 && !(sum > 0)) {
                    throw new GraphFormatException(files.get(0), "node " + keyNodes.id(v) + " has " + csr.degree(v)
                            + " edges and every weight is 0: weighted sampling (option fanout.weight-column) needs a"
                            + " positive weight sum per neighbourhood");
                }
            }
        }

        /**
         * Builds the adjacency in {@code direction} over {@code nodes} (which must hold every endpoint id).
         *
         * @param keepEdgeIds keep each stored edge's input row as its stable id ({@link CsrGraph#edgeIds()})
         */
        public CsrGraph build(NodeIdMap nodes, EdgeDirection direction, boolean keepEdgeIds) throws IOException {
            CsrGraph csr = settings.staging.build(nodes, !settings.directed, direction, keepEdgeIds);
            if (settings.weightColumn != null) {
                checkWeightSums(csr, nodes, direction, settings.staging, !settings.directed, files);
            }
            logLoad(csr, nodes.heapBytes(), direction);
            return csr;
        }

        private void logLoad(CsrGraph csr, long idBytes, EdgeDirection direction) {
            double seconds = (System.nanoTime() - started) / 1e9;
            long heap = csr.heapBytes() + idBytes;
            LOG.info("Loaded graph {}: {} nodes ({}), {} edges ({} rows, {}, direction {}{}{}{}) in {} s ({} edges/s);"
                            + " heap {} bytes ({} bytes/edge)",
                    source, csr.numNodes(), idBytes <= 24 ? "ids 0.." + (csr.numNodes() - 1) : "sparse ids",
                    csr.numEdges(), rows, settings.directed ? "directed" : "undirected", direction,
                    csr.hasWeights() ? ", weights" : "", csr.hasTimestamps() ? ", timestamps" : "",
                    csr.hasEdgeIds() ? ", edge ids" : "",
                    String.format(Locale.ROOT, "%.3f", seconds),
                    String.format(Locale.ROOT, "%.0f", csr.numEdges() / Math.max(seconds, 1e-9)), heap,
                    String.format(Locale.ROOT, "%.2f", heap / (double) Math.max(1, csr.numEdges())));
        }
    }

    /**
     * Weighted sampling draws a node's neighbours in proportion to their weights, so a node with neighbours but
     * only zero weights has nothing to draw: an error naming the node and the line of its first edge.
     */
    private static void checkWeightSums(CsrGraph csr, NodeIdMap nodes, EdgeDirection direction, EdgeStaging staging,
            boolean undirected, List<Path> files) throws IOException {
        float[] w = csr.weights();
        for (int v = 0; v < csr.numNodes(); v++) {
            int start = csr.start(v);
            int end = csr.end(v);
            double sum = 0;
            for (int i = start; i < end; i++) {
                sum += w[i];
            }
            if (end > start && !(sum > 0)) {
                long row = staging.firstRowOf(v, nodes, direction, undirected);
                throw locate(files, row, "node " + nodes.id(v) + " has " + (end - start) + " "
                        + direction.name().toLowerCase(Locale.ROOT) + "-edges and every weight is 0: weighted"
                        + " sampling (option fanout.weight-column) needs a positive weight sum per neighbourhood"
                        + " (this is its first edge)");
            }
        }
    }

    /**
     * A problem with the {@code row}-th edge row (0-based over {@code files} in order, {@code #} lines not
     * counted), at its file and line: found by reading the files again, as only error paths need it.
     */
    static GraphFormatException locate(List<Path> files, long row, String problem) throws IOException {
        long seen = 0;
        for (Path file : files) {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(GraphFiles.open(file),
                    StandardCharsets.UTF_8))) {
                long line = 0;
                for (String text; (text = in.readLine()) != null; ) {
                    line++;
                    if (!text.startsWith("#") && seen++ == row) {
                        return new GraphFormatException(file, line, problem);
                    }
                }
            }
        }
        return new GraphFormatException(files.get(0), "edge row " + row + ": " + problem);
    }

    /**
     * The edge parts to read: {@link #edgeFiles(Path)}, or with {@code typedPart} the one file {@code graph} names (an
     * edge type's file of a typed graph, which the partitioned store loads type by type).
     */
    public static List<Path> edgeFiles(Path graph, boolean typedPart) throws IOException {
        if (typedPart) {
            if (!Files.isRegularFile(graph)) {
                throw new GraphFormatException(graph, "not a file: one edge type's file of a typed graph was expected");
            }
            return List.of(graph);
        }
        return edgeFiles(graph);
    }

    /**
     * The edge files {@code graph} stands for: itself if it is a file, else its {@code edges*.tsv[.gz]} files in
     * sorted name order.
     *
     * @throws GraphFormatException for a typed (heterogeneous) edge file or a directory without edge files
     */
    public static List<Path> edgeFiles(Path graph) throws IOException {
        List<Path> files = GraphFiles.parts(graph, "edges", "edge");
        for (Path file : files) {
            String name = file.getFileName().toString();
            if (name.startsWith("edges") && name.contains("__")) {
                throw new GraphFormatException(file, "typed edge file (edges.<src>__<rel>__<dst>.tsv) among"
                        + " the parts of a homogeneous graph: a typed graph's directory holds typed edge files only");
            }
        }
        return files;
    }

    private static String describe(List<Path> files) {
        return files.size() == 1 ? files.get(0).toString() : files.size() + " files " + files;
    }
}
