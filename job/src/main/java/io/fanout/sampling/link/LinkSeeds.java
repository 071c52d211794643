package io.fanout.sampling.link;

import io.fanout.graph.GraphFiles;
import io.fanout.graph.GraphFormatException;
import io.fanout.graph.NodeIdMap;
import io.fanout.graph.typed.EdgeType;
import it.unimi.dsi.fastutil.ints.IntArrayList;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * The seed edges of a link-prediction job (GLT's edge input): (src, dst) node indices of one edge type, in file
 * order; a batch's seeds are positions into them. They need not be edges of the graph (held-out edges are the
 * usual case).
 */
public final class LinkSeeds implements Serializable {
    private static final long serialVersionUID = 1L;

    private final EdgeType type;
    private final int[] src;
    private final int[] dst;
    /** Each seed edge's time (a third column, PyG's edge_label_time), or null when the file has none. */
    private final long[] times;
    /**
     * The id maps of the ends' node types the file was read against (the client's; not sent with the job), for
     * {@link #endpointIds()}; a plain graph's one map is both. Null in a copy sent with a job.
     */
    private transient NodeIdMap srcIds;
    private transient NodeIdMap dstIds;

    public LinkSeeds(EdgeType type, int[] src, int[] dst) {
        this(type, src, dst, null);
    }

    public LinkSeeds(EdgeType type, int[] src, int[] dst, long[] times) {
        if (src.length != dst.length || times != null && times.length != src.length) {
            throw new IllegalArgumentException("src, dst and times differ in length");
        }
        this.type = type;
        this.src = src;
        this.dst = dst;
        this.times = times;
    }

    /**
     * Reads {@code src<TAB>dst[<TAB>time]} lines ({@code #} lines skipped; a third column, the seed edge's time, in
     * every row or none; more columns are an error) of node ids of the edge
     * type's source and destination types.
     *
     * @throws GraphFormatException naming the line of a malformed row or an id that is not a node of its type
     */
    public static LinkSeeds read(Path file, EdgeType type, NodeIdMap srcIds, NodeIdMap dstIds) throws IOException {
        LinkSeeds links = read(file, type, srcIds, dstIds, "a node of type " + type.src(), "a node of type "
                + type.dst());
        links.srcIds = srcIds;
        links.dstIds = dstIds;
        return links;
    }

    /**
     * The seed edges of a plain (homogeneous) graph: {@code src<TAB>dst} lines of the graph's node ids, as PyG's
     * {@code LinkNeighborLoader} takes {@code edge_label_index} on a {@code Data}; {@link #type()} is null.
     *
     * @throws GraphFormatException naming the line of a malformed row or an id that is not a node of the graph
     */
    public static LinkSeeds readPlain(Path file, NodeIdMap ids) throws IOException {
        LinkSeeds links = read(file, null, ids, ids, "a node of the graph", "a node of the graph");
        links.srcIds = ids;
        links.dstIds = ids;
        return links;
    }

    /**
     * The seed edges' ends as node ids, {@code [sources, destinations]} by position, for a store that keys nodes by
     * id (the partitioned store); only on the client that read the file.
     */
    public long[][] endpointIds() {
        if (srcIds == null) {
            throw new IllegalStateException("the seed edges' ids are known where the file was read");
        }
        long[][] ends = new long[2][src.length];
        for (int i = 0; i < src.length; i++) {
            ends[0][i] = srcIds.id(src[i]);
            ends[1][i] = dstIds.id(dst[i]);
        }
        return ends;
    }

    /**
     * The plain graph's node ids the file was read against (its indices are the memory store's), for a store that
     * draws negatives by index; only on the client that read the file ({@link #readPlain}).
     */
    public NodeIdMap plainIds() {
        if (srcIds == null || type != null) {
            throw new IllegalStateException("the graph's ids are known where a plain graph's file was read");
        }
        return srcIds;
    }

    /** The id map of the sources' node type the file was read against; only on the client that read it. */
    public NodeIdMap srcIds() {
        if (srcIds == null) {
            throw new IllegalStateException("the ends' ids are known where the file was read");
        }
        return srcIds;
    }

    /** The id map of the destinations' node type the file was read against; only on the client that read it. */
    public NodeIdMap dstIds() {
        if (dstIds == null) {
            throw new IllegalStateException("the ends' ids are known where the file was read");
        }
        return dstIds;
    }

    /** The seed edges' times by position (the file's third column), or null; shared, not copied. */
    public long[] times() {
        return times;
    }

    private static LinkSeeds read(Path file, EdgeType type, NodeIdMap srcIds, NodeIdMap dstIds, String srcWhat,
            String dstWhat) throws IOException {
        IntArrayList src = new IntArrayList();
        IntArrayList dst = new IntArrayList();
        it.unimi.dsi.fastutil.longs.LongArrayList times = new it.unimi.dsi.fastutil.longs.LongArrayList();
        long lineNo = 0;
        try (BufferedReader in = new BufferedReader(new InputStreamReader(GraphFiles.open(file),
                StandardCharsets.UTF_8))) {
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                lineNo++;
                if (line.startsWith("#")) {
                    continue;
                }
                String[] f = line.strip().split("[\t ]+");
                if (f.length < 2) {
                    throw new GraphFormatException(file, lineNo, "expected src<TAB>dst, got '" + line + "'");
                }
                if (f.length > 3) {
                    throw new GraphFormatException(file, lineNo, "expected src<TAB>dst[<TAB>time], got " + f.length
                            + " columns: '" + line + "'");
                }
                if (!src.isEmpty() && (f.length == 3) != !times.isEmpty()) {
                    throw new GraphFormatException(file, lineNo, "a seed edge's time (third column) must be given on"
                            + " every row or on none");
                }
                src.add(index(file, lineNo, f[0], srcIds, srcWhat));
                dst.add(index(file, lineNo, f[1], dstIds, dstWhat));
                if (f.length == 3) {
                    try {
                        times.add(Long.parseLong(f[2]));
                    } catch (NumberFormatException e) {
                        throw new GraphFormatException(file, lineNo, "'" + f[2] + "' is not a time (an integer in the"
                                + " unit of the graph's time column)");
                    }
                }
            }
        }
        if (src.isEmpty()) {
            throw new GraphFormatException(file, "no seed edges (expected src<TAB>dst lines)");
        }
        return new LinkSeeds(type, src.toIntArray(), dst.toIntArray(), times.isEmpty() ? null : times.toLongArray());
    }

    /** The index of the node id {@code text} on line {@code lineNo} of {@code file}; an error says it is not {@code what}. */
    static int index(Path file, long lineNo, String text, NodeIdMap ids, String what)
            throws GraphFormatException {
        long id;
        try {
            id = Long.parseLong(text);
        } catch (NumberFormatException e) {
            throw new GraphFormatException(file, lineNo, "'" + text + "' is not a node id");
        }
        int index = ids.indexOf(id);
        if (index < 0) {
            throw new GraphFormatException(file, lineNo, "node " + id + " is not " + what);
        }
        return index;
    }

    /** The seed edges' type on a typed graph; null on a plain graph. */
    public EdgeType type() {
        return type;
    }

    public int size() {
        return src.length;
    }

    /** Source node index of seed edge {@code i}. */
    public int src(int i) {
        return src[i];
    }

    /** True when every seed edge has a time (the file's third column). */
    public boolean hasTimes() {
        return times != null;
    }

    /** The time of seed edge {@code i}; only when {@link #hasTimes()}. */
    public long time(int i) {
        return times[i];
    }

    /** Destination node index of seed edge {@code i}. */
    public int dst(int i) {
        return dst[i];
    }
}
