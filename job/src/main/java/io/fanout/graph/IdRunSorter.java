package io.fanout.graph;

import it.unimi.dsi.fastutil.longs.LongArrays;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.Closeable;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;

/**
 * Sorts a stream of int64 ids with a heap bounded by its run size, not by the stream: full buffers are sorted and
 * spilled to temporary run files, which {@link #sorted} merges. What a client uses to list a graph's node ids in id
 * order when the ids may not fit its heap.
 *
 * <p>With {@code distinct} a run keeps each id once (the graph's edge endpoints repeat each node once per edge);
 * without it every added id comes back, so a caller can find an id given twice. Ids below {@code denseIds} are
 * marked in a bit set instead (grown up to the largest such id: at most {@code denseIds / 8} bytes), so the common
 * dense ids are never sorted or spilled; only a repeat of one (without {@code distinct}) goes to the runs.
 */
public final class IdRunSorter implements Closeable {
    /** Runs merged at once; more are merged in rounds first, so open files and read buffers stay bounded. */
    static final int MAX_FAN_IN = 64;
    private static final int READ_BUFFER = 1 << 16;

    private final Path dir;
    private final boolean distinct;
    private final long denseIds;
    private long[] dense = new long[0];
    private final long[] buffer;
    private int buffered;
    private final List<Path> runs = new ArrayList<>();
    private long added;
    private boolean merging;

    /**
     * @param dir where run files are created (and deleted by {@link #close})
     * @param runIds ids per in-memory run (8 bytes each): the heap this sorter holds
     * @param distinct whether repeated ids may be dropped
     * @param denseIds ids below this are kept in a bit set (at most {@code denseIds / 8} bytes), never in runs
     */
    public IdRunSorter(Path dir, int runIds, boolean distinct, long denseIds) {
        if (runIds < 2) {
            throw new IllegalArgumentException("runIds must be >= 2, got " + runIds);
        }
        if (denseIds < 0 || denseIds > 64L * Integer.MAX_VALUE) {
            throw new IllegalArgumentException("denseIds must be in 0.." + 64L * Integer.MAX_VALUE + ", got " + denseIds);
        }
        this.dir = dir;
        this.distinct = distinct;
        this.denseIds = denseIds;
        this.buffer = new long[runIds];
    }

    /** As above, every id sorted in runs (no bit set). */
    public IdRunSorter(Path dir, int runIds, boolean distinct) {
        this(dir, runIds, distinct, 0);
    }

    /** Adds one id. */
    public void add(long id) {
        if (merging) {
            throw new IllegalStateException("ids added after sorted()");
        }
        if (id >= 0 && id < denseIds) {
            int word = (int) (id >>> 6);
            if (word >= dense.length) {
                dense = java.util.Arrays.copyOf(dense, (int) Math.min(Math.max(word + 1L, 2L * dense.length),
                        (denseIds + 63) >>> 6));
            }
            long bit = 1L << id;
            if ((dense[word] & bit) == 0) {
                dense[word] |= bit;
                added++;
                return;
            }
            if (distinct) {
                added++;
                return;
            }
            // A repeat: it comes back from the runs, merged beside the bit set's copy.
        }
        if (buffered == buffer.length) {
            spill();
        }
        buffer[buffered++] = id;
        added++;
    }

    /** Ids added so far. */
    public long added() {
        return added;
    }

    /** Run files written so far (a run only spills when the buffer is full). */
    public int spilledRuns() {
        return runs.size();
    }

    private void spill() {
        int n = sortBuffer();
        try {
            Path run = Files.createTempFile(dir, "fanout-ids-", ".run");
            runs.add(run);
            try (DataOutputStream out = new DataOutputStream(new BufferedOutputStream(Files.newOutputStream(run),
                    READ_BUFFER))) {
                for (int i = 0; i < n; i++) {
                    out.writeLong(buffer[i]);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot spill sorted ids to " + dir, e);
        }
        buffered = 0;
    }

    /** Sorts the buffer (dropping repeats when distinct) and returns how many ids it holds. */
    private int sortBuffer() {
        LongArrays.radixSort(buffer, 0, buffered);
        if (!distinct) {
            return buffered;
        }
        int n = 0;
        for (int i = 0; i < buffered; i++) {
            if (n == 0 || buffer[n - 1] != buffer[i]) {
                buffer[n++] = buffer[i];
            }
        }
        return n;
    }

    /**
     * Every id added, ascending (each once when distinct). Call once, after the last {@link #add}; the cursor reads
     * the runs, so close it before closing this sorter.
     */
    public Cursor sorted() throws IOException {
        if (merging) {
            throw new IllegalStateException("sorted() called twice");
        }
        merging = true;
        Cursor sorted = sortedRuns();
        return dense.length == 0 ? sorted : new DenseMergeCursor(dense, sorted);
    }

    private Cursor sortedRuns() throws IOException {
        if (runs.isEmpty()) { // everything fits in one buffer: no file at all
            int n = sortBuffer();
            return new ArrayCursor(buffer, n);
        }
        if (buffered > 0) {
            spill();
        }
        while (runs.size() > MAX_FAN_IN) {
            List<Path> round = new ArrayList<>(runs.subList(0, MAX_FAN_IN));
            runs.subList(0, MAX_FAN_IN).clear();
            Path merged = Files.createTempFile(dir, "fanout-ids-", ".run");
            try (Cursor in = new MergeCursor(round, distinct);
                    DataOutputStream out = new DataOutputStream(new BufferedOutputStream(
                            Files.newOutputStream(merged), READ_BUFFER))) {
                while (in.hasNext()) {
                    out.writeLong(in.next());
                }
            }
            for (Path run : round) {
                Files.deleteIfExists(run);
            }
            runs.add(merged);
        }
        return new MergeCursor(new ArrayList<>(runs), distinct);
    }

    /** Deletes the run files. */
    @Override
    public void close() throws IOException {
        for (Path run : runs) {
            Files.deleteIfExists(run);
        }
        runs.clear();
    }

    /** Ascending ids, read one at a time. */
    public interface Cursor extends Closeable {
        boolean hasNext() throws IOException;

        long next() throws IOException;

        @Override
        default void close() throws IOException {}
    }

    private static final class ArrayCursor implements Cursor {
        private final long[] ids;
        private final int size;
        private int next;

        ArrayCursor(long[] ids, int size) {
            this.ids = ids;
            this.size = size;
        }

        @Override
        public boolean hasNext() {
            return next < size;
        }

        @Override
        public long next() {
            return ids[next++];
        }
    }

    /** The bit set's ids merged with the runs' (which hold the larger ids and, without distinct, repeats). */
    private static final class DenseMergeCursor implements Cursor {
        private final long[] words;
        private final Cursor runs;
        private int word;
        private long bits;
        private boolean runHas;
        private long runHead;

        DenseMergeCursor(long[] words, Cursor runs) throws IOException {
            this.words = words;
            this.runs = runs;
            this.bits = words[0];
            nextRun();
        }

        private void nextRun() throws IOException {
            runHas = runs.hasNext();
            if (runHas) {
                runHead = runs.next();
            }
        }

        private boolean denseHas() {
            while (bits == 0 && word + 1 < words.length) {
                bits = words[++word];
            }
            return bits != 0;
        }

        @Override
        public boolean hasNext() {
            return runHas || denseHas();
        }

        @Override
        public long next() throws IOException {
            if (denseHas()) {
                long id = ((long) word << 6) + Long.numberOfTrailingZeros(bits);
                if (!runHas || id <= runHead) {
                    bits &= bits - 1;
                    return id;
                }
            }
            if (!runHas) {
                throw new java.util.NoSuchElementException();
            }
            long id = runHead;
            nextRun();
            return id;
        }

        @Override
        public void close() throws IOException {
            runs.close();
        }
    }

    /** A k-way merge of sorted run files through a heap of their heads. */
    private static final class MergeCursor implements Cursor {
        private final List<DataInputStream> inputs = new ArrayList<>();
        private final PriorityQueue<long[]> heads = new PriorityQueue<>((a, b) -> Long.compare(a[0], b[0]));
        private final boolean distinct;
        private boolean any;
        private long last;

        MergeCursor(List<Path> runs, boolean distinct) throws IOException {
            this.distinct = distinct;
            try {
                for (Path run : runs) {
                    DataInputStream in = new DataInputStream(new BufferedInputStream(Files.newInputStream(run),
                            READ_BUFFER));
                    inputs.add(in);
                    advance(new long[] {0, inputs.size() - 1});
                }
            } catch (IOException e) {
                close();
                throw e;
            }
            skipRepeats();
        }

        /** Reads the next id of the run that {@code head} belongs to into it and queues it, unless that run ended. */
        private void advance(long[] head) throws IOException {
            try {
                head[0] = inputs.get((int) head[1]).readLong();
                heads.add(head);
            } catch (EOFException end) {
                // this run is done
            }
        }

        private void skipRepeats() throws IOException {
            while (distinct && any && !heads.isEmpty() && heads.peek()[0] == last) {
                advance(heads.poll());
            }
        }

        @Override
        public boolean hasNext() {
            return !heads.isEmpty();
        }

        @Override
        public long next() throws IOException {
            long[] head = heads.poll();
            if (head == null) {
                throw new java.util.NoSuchElementException();
            }
            last = head[0];
            any = true;
            advance(head);
            skipRepeats();
            return last;
        }

        @Override
        public void close() throws IOException {
            IOException failed = null;
            for (DataInputStream in : inputs) {
                try {
                    in.close();
                } catch (IOException e) {
                    failed = e;
                }
            }
            if (failed != null) {
                throw failed;
            }
        }
    }
}
