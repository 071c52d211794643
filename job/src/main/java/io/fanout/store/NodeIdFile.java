package io.fanout.store;

import io.fanout.digest.Sha256;
import io.fanout.features.NodeFileReader;
import io.fanout.graph.GraphFormatException;
import io.fanout.graph.GraphLoader;
import io.fanout.graph.IdRunSorter;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.DigestOutputStream;
import java.security.MessageDigest;
import java.util.Locale;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Every node id of a graph, in id order, written to a seed file: the seeds of a partitioned job without
 * {@code --seeds}, found by a client whose heap is bounded by its sort runs, whatever the graph's size.
 *
 * <p>One streaming pass over the edge files (and the node file) checks every row as {@link GraphStore#scanNodeIds}
 * does and feeds the ids to {@link IdRunSorter}s; their merge is the graph's node set (edge endpoints, the declared
 * {@code num_nodes} range and the node file's ids), written one id per line. When every edge part's header declares
 * {@code num_nodes}, the edge rows are not read: the load checks each of their ids below it, so the endpoints are
 * within the declared range ({@link GraphLoader#declaredNodeRange}); the node file is still read and checked. The file is named by its content's
 * digest, so a job that is running on it never sees it change, and an unchanged graph reuses it. Node ids that are
 * exactly {@code 0..n-1} need no file: the seeds are then the range.
 */
public final class NodeIdFile {
    private static final Logger LOG = LoggerFactory.getLogger(NodeIdFile.class);
    /** Most ids per sorted run (8 bytes each): 16 MiB of heap per sorter, two sorters with a node file. */
    static final int DEFAULT_RUN_IDS = 1 << 21;
    /** Most ids in a sorter's bit set (ids 0..2^27-1 are never sorted): another 16 MiB per sorter. */
    static final long DEFAULT_DENSE_IDS = 1L << 27;

    private NodeIdFile() {}

    /**
     * The scan's result.
     *
     * @param numNodes the graph's distinct node ids
     * @param file the id file, or null when the ids are exactly {@code 0..numNodes-1}
     */
    public record NodeIds(long numNodes, Path file) {
        /** True when the ids are {@code 0..numNodes-1} (no file was kept). */
        public boolean identity() {
            return file == null;
        }
    }

    /** Scans {@code spec}'s files and writes its node ids under {@code dir} (created if missing). */
    public static NodeIds write(GraphSpec spec, Path dir) throws IOException {
        // Runs and bit set each at most a sixteenth of the heap per sorter (a quarter for both sorters), so a small
        // client heap spills sooner instead of failing.
        long sixteenth = Runtime.getRuntime().maxMemory() / 16;
        return write(spec, dir, (int) Math.max(1 << 12, Math.min(DEFAULT_RUN_IDS, sixteenth / Long.BYTES)),
                Math.min(DEFAULT_DENSE_IDS, sixteenth * 8));
    }

    static NodeIds write(GraphSpec spec, Path dir, int runIds, long denseIds) throws IOException {
        long started = System.nanoTime();
        Files.createDirectories(dir);
        try (IdRunSorter edgeIds = new IdRunSorter(dir, runIds, true, denseIds);
                IdRunSorter fileIds = spec.nodeFeatures() == null ? null
                        : new IdRunSorter(dir, runIds, false, denseIds)) {
            // Every part declaring num_nodes: the load checks each id below it, so the edges' ids are within
            // 0..num_nodes-1 and no row needs reading here (R-MAT 2^18 x 16: 0.23-0.3 s of a 1.4 s load).
            long declared = GraphLoader.declaredNodeRange(spec.edges(), spec.directed());
            boolean headersOnly = declared >= 0;
            if (!headersOnly) {
                declared = GraphLoader.streamNodeIds(spec.edges(), spec.directed(), spec.weightColumn(),
                        spec.timeColumn(), edgeIds::add);
            }
            if (fileIds != null) {
                NodeFileReader.streamIds(spec.nodeFeatures(), fileIds::add);
            }
            int runs = edgeIds.spilledRuns() + (fileIds == null ? 0 : fileIds.spilledRuns());
            Path tmp = Files.createTempFile(dir, "fanout-node-ids-", ".tmp");
            try {
                NodeIds ids = merge(spec, declared, edgeIds, fileIds, tmp);
                LOG.info("Scanned {}: {} nodes ({}) in {} s, {}{} full runs spilled while reading (heap: {} ids per"
                        + " run, a bit set for ids below {}){}", spec, ids.numNodes(),
                        ids.identity() ? "ids 0.." + (ids.numNodes() - 1) : "sparse ids",
                        String.format(Locale.ROOT, "%.3f", (System.nanoTime() - started) / 1e9),
                        headersOnly ? "edge rows not read (every part's header declares num_nodes=" + declared
                                + "; the load checks each id below it), " : "", runs, runIds, denseIds,
                        ids.identity() ? "" : "; ids written to " + ids.file());
                return ids;
            } finally {
                Files.deleteIfExists(tmp);
            }
        }
    }

    /** Merges the sorted streams into {@code tmp}, checks the node file against them and names the result. */
    private static NodeIds merge(GraphSpec spec, long declared, IdRunSorter edgeIds, IdRunSorter fileIds, Path tmp)
            throws IOException {
        MessageDigest sha = Sha256.create();
        long count = 0;
        long last = -1;
        long missing = 0;
        long firstMissing = -1;
        long repeated = -1;
        boolean aboveDeclared = false;
        try (IdRunSorter.Cursor edges = edgeIds.sorted();
                IdRunSorter.Cursor rows = fileIds == null ? null : fileIds.sorted();
                OutputStream out = new DigestOutputStream(new BufferedOutputStream(Files.newOutputStream(tmp), 1 << 16),
                        sha)) {
            Head edge = new Head(edges);
            Head row = new Head(rows);
            long range = Math.max(declared, 0); // ids 0..range-1 are nodes
            byte[] line = new byte[21];
            for (long next = 0; ; ) {
                long id = Math.min(edge.has ? edge.id : Long.MAX_VALUE, row.has ? row.id : Long.MAX_VALUE);
                if (next < range) {
                    id = Math.min(id, next);
                } else if (!edge.has && !row.has) {
                    break;
                }
                boolean inEdges = edge.skip(id) > 0 || id < range;
                long inFile = row.skip(id);
                next = id + 1;
                if (fileIds != null) {
                    if (inFile == 0 && missing++ == 0) {
                        firstMissing = id;
                    }
                    if (inFile > 1 && repeated < 0) {
                        repeated = id;
                    }
                    aboveDeclared |= inFile > 0 && declared >= 0 && id >= declared;
                }
                assert inEdges || inFile > 0;
                out.write(line, 0, digits(id, line));
                count++;
                last = id;
                if (id == Long.MAX_VALUE) {
                    break; // nothing is larger (and id + 1 would wrap)
                }
            }
        }
        if (repeated >= 0) {
            long twice = repeated;
            long[] seen = {0};
            throw NodeFileReader.errorAtFirst(spec.nodeFeatures(), id -> id == twice && ++seen[0] == 2,
                    NodeFileReader::givenTwice);
        }
        if (aboveDeclared) {
            throw NodeFileReader.errorAtFirst(spec.nodeFeatures(), id -> id >= declared,
                    id -> "node id " + id + " is not below num_nodes=" + declared + " declared in the edge file header");
        }
        if (missing > 0) {
            throw NodeFileReader.missingRows(spec.nodeFeatures(), firstMissing, missing, count);
        }
        if (last == count - 1) {
            return new NodeIds(count, null);
        }
        return new NodeIds(count, published(tmp, sha));
    }

    /**
     * The node-id file of ids a client holds already (a scan's {@link io.fanout.graph.NodeIdMap}, ascending): the file
     * {@link #write(GraphSpec, Path)} would name and write for the same graph, without reading the graph again.
     */
    public static NodeIds write(io.fanout.graph.NodeIdMap ids, Path dir) throws IOException {
        if (ids.isIdentity()) {
            return new NodeIds(ids.size(), null);
        }
        Files.createDirectories(dir);
        Path tmp = Files.createTempFile(dir, "fanout-node-ids-", ".tmp");
        try {
            MessageDigest sha = Sha256.create();
            try (OutputStream out = new DigestOutputStream(new BufferedOutputStream(Files.newOutputStream(tmp), 1 << 16),
                    sha)) {
                byte[] line = new byte[21];
                for (int i = 0; i < ids.size(); i++) {
                    out.write(line, 0, digits(ids.id(i), line));
                }
            }
            return new NodeIds(ids.size(), published(tmp, sha));
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    /** Names the written {@code tmp} by its content's digest beside it, keeping a file of that name already there. */
    private static Path published(Path tmp, MessageDigest sha) throws IOException {
        Path file = tmp.resolveSibling("fanout-node-ids-" + Sha256.hex(sha, 32) + ".txt");
        if (Files.isRegularFile(file) && Files.size(file) != Files.size(tmp)) {
            // Same name, other size: not what this client would write (cut short?): replace it.
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } else if (!Files.isRegularFile(file)) {
            try {
                // A link fails if the name exists: a client writing the same ids at the same moment keeps its file,
                // so a job already planned over it never sees it change.
                Files.createLink(file, tmp);
            } catch (java.nio.file.FileAlreadyExistsException sameIds) {
                // written by another client just now: the same ids
            } catch (UnsupportedOperationException | IOException noLinks) {
                Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            }
        } // else the same ids are there already: leave that file (and its modification time) alone
        return file;
    }

    /** Writes {@code id} and a newline into {@code line}; returns the length. */
    private static int digits(long id, byte[] line) {
        int end = line.length;
        line[--end] = '\n';
        long v = id;
        do {
            line[--end] = (byte) ('0' + v % 10);
            v /= 10;
        } while (v != 0);
        System.arraycopy(line, end, line, 0, line.length - end);
        return line.length - end;
    }

    /** A cursor's next id, consumed by value. */
    private static final class Head {
        private final IdRunSorter.Cursor cursor;
        boolean has;
        long id;

        Head(IdRunSorter.Cursor cursor) throws IOException {
            this.cursor = cursor;
            advance();
        }

        private void advance() throws IOException {
            has = cursor != null && cursor.hasNext();
            if (has) {
                id = cursor.next();
            }
        }

        /** Consumes every copy of {@code value} at the head; returns how many there were. */
        long skip(long value) throws IOException {
            long n = 0;
            while (has && id == value) {
                n++;
                advance();
            }
            return n;
        }
    }
}
