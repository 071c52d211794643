package io.fanout.batch;

import io.fanout.graph.NodeIdCollector;
import io.fanout.graph.NodeIdMap;
import it.unimi.dsi.fastutil.ints.IntArrayList;
import it.unimi.dsi.fastutil.longs.LongArrayList;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.LongToIntFunction;
import java.util.zip.GZIPInputStream;

/**
 * The seed nodes an epoch iterates over: every node {@code 0..n-1}, or an explicit list of node ids.
 *
 * <p>"All nodes" stores only the count, so the default training set of a billion-node graph costs
 * nothing until an epoch shuffles it. Explicit ids keep their given order and duplicates (as GLT's
 * {@code input_nodes} does: each occurrence is a seed).
 */
public final class SeedSet implements Serializable {
    private static final long serialVersionUID = 1L;

    /** How many unknown ids an error message lists before it only counts the rest. */
    private static final int MAX_IDS_IN_ERROR = 10;

    /** Number of seeds when {@link #ids} is null (all nodes), else ignored. */
    private final int numNodes;
    /** Explicit seed ids, or null for "all nodes 0..numNodes-1". */
    private final int[] ids;
    /** Per seed (by input position), its time from the seed file's second column; null when none was given. */
    private final long[] times;

    /** For a {@link #counted} set: the digest of the seed file the workers read and its chunking; 0 otherwise. */
    private final long countedHash;

    private SeedSet(int numNodes, int[] ids) {
        this(numNodes, ids, null);
    }

    private SeedSet(int numNodes, int[] ids, long[] times) {
        this(numNodes, ids, times, 0);
    }

    private SeedSet(int numNodes, int[] ids, long[] times, long countedHash) {
        this.numNodes = numNodes;
        this.ids = ids;
        this.times = times;
        this.countedHash = countedHash;
    }

    /**
     * The seeds' times by input position (a seed file of {@code id<TAB>time} lines, for temporal sampling), or
     * null when the seeds came without times. Shared, not copied: read-only by contract.
     */
    public long[] times() {
        return times;
    }

    /** Every node of a graph with {@code numNodes} nodes, in id order. */
    public static SeedSet allNodes(int numNodes) {
        if (numNodes < 1) {
            throw new IllegalArgumentException("the graph has no nodes (num_nodes=" + numNodes + "): nothing to seed");
        }
        return new SeedSet(numNodes, null);
    }

    /**
     * The seeds of a {@link SeedFile} that the workers read themselves: only their count (and the file's digest, for
     * {@link BatchPlan#fingerprint()}) is kept, so {@link #get} is not available.
     */
    public static SeedSet counted(SeedFile file) {
        if (file.numSeeds() > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(file.path() + ": " + file.numSeeds() + " seeds, more than the "
                    + Integer.MAX_VALUE + " a job plans batches for");
        }
        // The chunking is in the digest too: a restored reader's position is a chunk index.
        long hash = io.fanout.random.SplitMix64.seed(file.contentHash(), file.seedsPerChunk(), 0x5EEDF11EL);
        return new SeedSet((int) file.numSeeds(), null, null, hash == 0 ? 1 : hash);
    }

    /** Fails unless this set holds as many seeds as {@code file}: the plan of a source that reads them from it. */
    public void requireCountOf(SeedFile file) {
        if (size() != file.numSeeds()) {
            throw new IllegalArgumentException("the plan has " + size() + " seeds, the file " + file.path() + " "
                    + file.numSeeds());
        }
    }

    /** True for a {@link #counted} set, whose seeds only the workers read. */
    public boolean isCounted() {
        return countedHash != 0;
    }

    /** The seed file's digest of a {@link #counted} set. */
    long countedHash() {
        return countedHash;
    }

    /**
     * Explicit seed ids of a graph with {@code numNodes} nodes; the array is copied.
     *
     * @throws IllegalArgumentException if {@code ids} is empty or holds an id outside {@code [0, numNodes)}
     */
    public static SeedSet of(int numNodes, int... ids) {
        if (ids.length == 0) {
            throw new IllegalArgumentException("the seed set is empty");
        }
        List<String> unknown = new ArrayList<>();
        int unknownCount = 0;
        for (int id : ids) {
            if (id < 0 || id >= numNodes) {
                if (unknown.size() < MAX_IDS_IN_ERROR) {
                    unknown.add(Integer.toString(id));
                }
                unknownCount++;
            }
        }
        if (unknownCount > 0) {
            throw new IllegalArgumentException(unknownIdsMessage("seed ids", unknown, unknownCount,
                    NodeIdMap.identity(numNodes)));
        }
        return new SeedSet(numNodes, ids.clone());
    }

    /**
     * Parses the {@code seeds} option: a path to a file of node ids (one per line; blank lines and
     * lines starting with {@code #} are skipped; {@code .gz} files are decompressed) or a comma list
     * such as {@code 1,5,9}. A spec naming an existing file is always read as a file.
     *
     * @throws IllegalArgumentException naming the file and line (or list element) of a malformed or
     *     negative id, or listing ids that are not nodes of the graph ({@code >= numNodes})
     * @throws IOException if the file cannot be read, or the spec is neither a file nor a list
     */
    public static SeedSet parse(String spec, int numNodes) throws IOException {
        return parse(spec, NodeIdMap.identity(numNodes));
    }

    /**
     * As {@link #parse(String, int)} for a graph whose node ids {@code nodes} maps: the seeds are given as
     * node ids and stored as node indices.
     */
    public static SeedSet parse(String spec, NodeIdMap nodes) throws IOException {
        return parse(spec, nodes::indexOf, nodes);
    }

    /**
     * The distinct node ids the {@code seeds} option names, as a map in ascending id order, read from the option
     * alone: for a partitioned graph, whose node ids the client never reads. {@link #parse(String, NodeIdMap)} with
     * this map then maps every seed; a malformed line fails here as it would there. Heap: 8 bytes per seed line, as the
     * graph's own id collection costs (never the value of the largest id).
     */
    public static NodeIdMap idsNamed(String spec) throws IOException {
        LongArrayList named = new LongArrayList();
        parse(spec, id -> {
            named.add(id);
            return 0;
        }, null);
        return new NodeIdCollector().add(named.elements(), named.size()).build();
    }

    /** Parses with {@code indexOf} (-1: not a node); {@code nodes} sizes the set and names the graph in errors. */
    private static SeedSet parse(String spec, LongToIntFunction indexOf, NodeIdMap nodes) throws IOException {
        if (spec == null || spec.isBlank()) {
            throw new IllegalArgumentException("seeds is empty: give a file of node ids or a comma list such as 1,5,9");
        }
        Path file = Path.of(spec.trim());
        if (Files.isRegularFile(file)) {
            return parseFile(file, indexOf, nodes);
        }
        if (spec.contains(",") || spec.trim().matches("[-+]?[0-9]+")) {
            return parseList(spec, indexOf, nodes);
        }
        throw new NoSuchFileException(spec, null,
                "no such seed file (seeds is a file of node ids, one per line, or a comma list such as 1,5,9)");
    }

    private static SeedSet parseFile(Path file, LongToIntFunction indexOf, NodeIdMap nodes) throws IOException {
        IntArrayList ids = new IntArrayList();
        long[] times = new long[16];
        int timedLines = 0;
        int untimedLine = 0;
        int timedLine = 0;
        List<String> unknown = new ArrayList<>();
        int unknownCount = 0;
        try (InputStream raw = Files.newInputStream(file);
                InputStream in = file.getFileName().toString().endsWith(".gz") ? new GZIPInputStream(raw) : raw;
                BufferedReader reader = new BufferedReader(new InputStreamReader(
                        io.fanout.graph.ByteOrderMark.skip(in), StandardCharsets.UTF_8))) {
            String line;
            int lineNo = 0;
            while ((line = reader.readLine()) != null) {
                lineNo++;
                String token = line.strip();
                if (token.isEmpty() || token.startsWith("#")) {
                    continue;
                }
                // An optional second column is the seed's time (temporal sampling): every line or none.
                String[] fields = token.split("[\\t ]+");
                if (fields.length > 2) {
                    throw new IllegalArgumentException(file + ":" + lineNo + ": expected 'id' or 'id<TAB>time', got "
                            + fields.length + " fields");
                }
                if (fields.length == 2) {
                    if (timedLines == times.length) {
                        times = Arrays.copyOf(times, times.length * 2);
                    }
                    try {
                        times[timedLines++] = Long.parseLong(fields[1]);
                    } catch (NumberFormatException e) {
                        throw new IllegalArgumentException(file + ":" + lineNo + ": seed time '" + fields[1]
                                + "' is not a whole number");
                    }
                    timedLine = timedLine == 0 ? lineNo : timedLine;
                } else {
                    untimedLine = untimedLine == 0 ? lineNo : untimedLine;
                }
                if (timedLine > 0 && untimedLine > 0) {
                    throw new IllegalArgumentException(file + ":" + Math.max(timedLine, untimedLine) + ": line "
                            + timedLine + " gives a seed time and line " + untimedLine + " does not (all lines or none)");
                }
                token = fields[0];
                int index = indexOf.applyAsInt(parseId(token, file + ":" + lineNo));
                if (index < 0) {
                    if (unknown.size() < MAX_IDS_IN_ERROR) {
                        unknown.add(token + " (line " + lineNo + ")");
                    }
                    unknownCount++;
                } else {
                    ids.add(index);
                }
            }
        }
        if (unknownCount > 0) {
            throw new IllegalArgumentException(file + ": " + unknownIdsMessage("seed ids", unknown, unknownCount, nodes));
        }
        if (ids.isEmpty()) {
            throw new IllegalArgumentException(file + ": no seed ids in the file (only blank or # lines)");
        }
        return new SeedSet(nodes == null ? 0 : nodes.size(), ids.toIntArray(),
                timedLines > 0 ? Arrays.copyOf(times, timedLines) : null);
    }

    private static SeedSet parseList(String spec, LongToIntFunction indexOf, NodeIdMap nodes) {
        String[] elements = spec.split(",", -1);
        IntArrayList ids = new IntArrayList(elements.length);
        List<String> unknown = new ArrayList<>();
        int unknownCount = 0;
        for (int i = 0; i < elements.length; i++) {
            String token = elements[i].strip();
            String where = "seeds list element " + (i + 1) + " of '" + spec + "'";
            int index = indexOf.applyAsInt(parseId(token, where));
            if (index < 0) {
                if (unknown.size() < MAX_IDS_IN_ERROR) {
                    unknown.add(token);
                }
                unknownCount++;
            } else {
                ids.add(index);
            }
        }
        if (unknownCount > 0) {
            throw new IllegalArgumentException("seeds '" + abbreviate(spec) + "': "
                    + unknownIdsMessage("seed ids", unknown, unknownCount, nodes));
        }
        return new SeedSet(nodes == null ? 0 : nodes.size(), ids.toIntArray());
    }

    /** A non-negative id; ids too large for a long are returned as Long.MAX_VALUE (unknown, not malformed). */
    static long parseId(String token, String where) {
        if (token.isEmpty()) {
            throw new IllegalArgumentException(where + ": empty seed id");
        }
        if (!token.matches("[0-9]+")) {
            String why = token.matches("-[0-9]+") ? "negative seed id" : "seed id is not a non-negative integer";
            throw new IllegalArgumentException(where + ": " + why + ": '" + abbreviate(token) + "'");
        }
        try {
            return Long.parseLong(token);
        } catch (NumberFormatException e) {
            return Long.MAX_VALUE; // beyond int64: no node has it
        }
    }

    private static String unknownIdsMessage(String what, List<String> shown, int count, NodeIdMap nodes) {
        StringBuilder sb = new StringBuilder();
        sb.append(count).append(" unknown ").append(what).append(" (the graph has ").append(nodes.size())
                .append(" nodes, ids ").append(nodes.size() == 0 ? "none" : nodes.id(0) + ".." + nodes.maxId())
                .append(nodes.isIdentity() ? "" : ", sparse").append("): ").append(String.join(", ", shown));
        if (count > shown.size()) {
            sb.append(", ... (").append(count - shown.size()).append(" more)");
        }
        return sb.toString();
    }

    private static String abbreviate(String s) {
        return s.length() <= 60 ? s : s.substring(0, 57) + "...";
    }

    /** Number of seeds. */
    public int size() {
        return ids == null ? numNodes : ids.length;
    }

    /** The {@code i}-th seed id, {@code 0 <= i < size()}. */
    public int get(int i) {
        requireHeld();
        if (ids == null) {
            if (i < 0 || i >= numNodes) {
                throw new IndexOutOfBoundsException("seed index " + i + " out of 0.." + (numNodes - 1));
            }
            return i;
        }
        return ids[i];
    }

    private void requireHeld() {
        if (isCounted()) {
            throw new UnsupportedOperationException("the seeds of " + this + " are read by the workers, not held here");
        }
    }

    /** True if this is every node {@code 0..size()-1} in id order (no explicit list stored). */
    public boolean isAllNodes() {
        return ids == null && !isCounted();
    }

    /** A fresh array of the seeds in order. */
    public int[] toArray() {
        requireHeld();
        if (ids != null) {
            return ids.clone();
        }
        int[] all = new int[numNodes];
        for (int i = 0; i < numNodes; i++) {
            all[i] = i;
        }
        return all;
    }

    @Override
    public String toString() {
        return isCounted() ? "SeedSet{" + numNodes + " seeds read from a file by the workers}"
                : ids == null ? "SeedSet{all " + numNodes + " nodes}" : "SeedSet{" + ids.length + " ids}";
    }
}
