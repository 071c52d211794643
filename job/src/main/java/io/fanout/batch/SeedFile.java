package io.fanout.batch;

import io.fanout.graph.ByteOrderMark;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.zip.GZIPInputStream;

/**
 * A seed file indexed for reading by many workers: its seed count, and where each chunk of
 * {@code seedsPerChunk} consecutive seeds starts, so a worker reads chunk {@code c} (seed positions
 * {@code c * seedsPerChunk ...}) without anyone holding the seeds.
 *
 * <p>{@link #index} makes one streaming pass that checks every line as {@link SeedSet#parse} does (one id per
 * line, or {@code id<TAB>time} on every line or none; blank and {@code #} lines skipped, {@code .gz} decompressed, a
 * UTF-8 byte-order mark skipped) and keeps 16 bytes per chunk (its offset and line number), never per seed.
 * A {@code .gz} file's offsets are into its decompressed bytes, so a worker reaches a chunk by decompressing up to
 * it: read such a file as one sequential range per epoch. A timed file's cursor gives each chunk's times with its ids
 * ({@link Cursor#lastTimes}), for temporal sampling.
 */
public final class SeedFile implements Serializable {
    private static final long serialVersionUID = 1L;

    private final String path;
    private final boolean gzip;
    private final long size;
    private final long modified;
    private final int seedsPerChunk;
    private final long numSeeds;
    /** Every seed line gives the seed's time (a second column). */
    private final boolean timed;
    /** Byte offset (decompressed for .gz) of the line of each chunk's first seed. */
    private final long[] chunkOffsets;
    /** 1-based line number of each chunk's first seed, for error messages. */
    private final long[] chunkLines;
    private final long contentHash;

    private SeedFile(String path, boolean gzip, long size, long modified, int seedsPerChunk, long numSeeds,
            boolean timed, long[] chunkOffsets, long[] chunkLines, long contentHash) {
        this.path = path;
        this.gzip = gzip;
        this.size = size;
        this.modified = modified;
        this.seedsPerChunk = seedsPerChunk;
        this.numSeeds = numSeeds;
        this.timed = timed;
        this.chunkOffsets = chunkOffsets;
        this.chunkLines = chunkLines;
        this.contentHash = contentHash;
    }

    /**
     * Indexes {@code file} in one pass.
     *
     * @throws IllegalArgumentException naming the file and line of a malformed or negative seed id, a seed time that
     *     is not a whole number, or a line with a time where another has none (or the reverse), or when the file holds
     *     no seed
     */
    public static SeedFile index(Path file, int seedsPerChunk) throws IOException {
        if (seedsPerChunk < 1) {
            throw new IllegalArgumentException("seedsPerChunk must be >= 1, got " + seedsPerChunk);
        }
        BasicFileAttributes attributes = Files.readAttributes(file, BasicFileAttributes.class);
        boolean gzip = file.getFileName().toString().endsWith(".gz");
        MessageDigest sha = io.fanout.digest.Sha256.create();
        long[] offsets = new long[16];
        long[] lines = new long[16];
        int chunks = 0;
        long seeds = 0;
        boolean timed;
        java.io.PushbackInputStream text = new java.io.PushbackInputStream(open(file, gzip), ByteOrderMark.LENGTH);
        // Offsets count a byte-order mark's bytes: a chunk is reached by seeking (or skipping) in the file itself.
        long mark = ByteOrderMark.skip(text);
        try (LineStream in = new LineStream(text, file.toString(), 1, sha)) {
            in.offset = mark;
            while (true) {
                long offset = in.offset();
                if (!in.next()) {
                    break;
                }
                if (in.parse() < 0) {
                    continue;
                }
                if (seeds % seedsPerChunk == 0) {
                    if (chunks == offsets.length) {
                        offsets = Arrays.copyOf(offsets, chunks * 2);
                        lines = Arrays.copyOf(lines, chunks * 2);
                    }
                    offsets[chunks] = offset;
                    lines[chunks] = in.lineNumber();
                    chunks++;
                }
                seeds++;
            }
            timed = in.timedLine > 0;
        }
        if (seeds == 0) {
            throw new IllegalArgumentException(file + ": no seed ids in the file (only blank or # lines)");
        }
        long hash = java.nio.ByteBuffer.wrap(sha.digest()).getLong();
        return new SeedFile(file.toAbsolutePath().toString(), gzip, attributes.size(),
                attributes.lastModifiedTime().toMillis(), seedsPerChunk, seeds, timed,
                Arrays.copyOf(offsets, chunks), Arrays.copyOf(lines, chunks), hash);
    }

    public String path() {
        return path;
    }

    public boolean isGzip() {
        return gzip;
    }

    public long numSeeds() {
        return numSeeds;
    }

    public int numChunks() {
        return chunkOffsets.length;
    }

    public int seedsPerChunk() {
        return seedsPerChunk;
    }

    /** True when every seed line gives the seed's time ({@code id<TAB>time}); false when none does. */
    public boolean timed() {
        return timed;
    }

    /** A 64-bit digest of the file's lines: two files with the same digest hold the same seeds. */
    public long contentHash() {
        return contentHash;
    }

    /** Position (seed index) of chunk {@code chunk}'s first seed. */
    public long firstPosition(int chunk) {
        return (long) chunk * seedsPerChunk;
    }

    /** Seeds in chunk {@code chunk} (the last may be short). */
    public int chunkLength(int chunk) {
        return (int) Math.min(seedsPerChunk, numSeeds - firstPosition(chunk));
    }

    /**
     * Reads the chunks from {@code chunk} on, in order.
     *
     * @throws IOException naming the file if it changed since it was indexed (its seeds would no longer be the ones
     *     the batches were planned for)
     */
    public Cursor open(int chunk) throws IOException {
        Path file = Path.of(path);
        BasicFileAttributes attributes;
        try {
            attributes = Files.readAttributes(file, BasicFileAttributes.class);
        } catch (java.nio.file.NoSuchFileException e) {
            throw new SeedFileChangedException(path + ": no such seed file on " + host() + "; every TaskManager must see"
                    + " the file the client planned the batches from at this same path (a shared or copied directory;"
                    + " without --seeds, the --partitioned.node-ids-dir the client wrote the node ids to)");
        }
        if (attributes.size() != size || attributes.lastModifiedTime().toMillis() != modified) {
            throw new SeedFileChangedException(path + ": the seed file changed after the job was planned (size " + size
                    + " -> " + attributes.size() + " bytes, modified " + modified + " -> "
                    + attributes.lastModifiedTime().toMillis() + " ms); submit the job again to plan its batches over"
                    + " the new seeds (every TaskManager must see the same file at this path)");
        }
        long offset = chunkOffsets[chunk];
        InputStream in;
        if (gzip) {
            in = open(file, true);
            in.skipNBytes(offset); // no random access into a gzip stream: decompress up to the chunk
        } else {
            java.nio.channels.SeekableByteChannel channel = Files.newByteChannel(file);
            channel.position(offset);
            in = java.nio.channels.Channels.newInputStream(channel);
        }
        LineStream lines = new LineStream(in, path, chunkLines[chunk], null);
        lines.expect(timed, chunkLines[chunk]); // as the index found: a line that differs fails naming both
        return new Cursor(lines, chunk);
    }

    private static String host() {
        try {
            return "host " + java.net.InetAddress.getLocalHost().getHostName();
        } catch (java.net.UnknownHostException e) {
            return "this host";
        }
    }

    /** The file's bytes (decompressed for gzip); unbuffered: {@link LineStream} reads in blocks of its own. */
    private static InputStream open(Path file, boolean gzip) throws IOException {
        InputStream raw = Files.newInputStream(file);
        return gzip ? new GZIPInputStream(raw, 1 << 16) : raw;
    }

    @Override
    public String toString() {
        return "SeedFile{" + path + ", " + numSeeds + (timed ? " timed" : "") + " seeds in " + numChunks()
                + " chunks of " + seedsPerChunk + "}";
    }

    /** Reads a {@link SeedFile}'s chunks in order from the one it was opened at. */
    public final class Cursor implements Closeable {
        private final LineStream in;
        private int next;
        private long[] times;

        private Cursor(LineStream in, int chunk) {
            this.in = in;
            this.next = chunk;
        }

        /** The chunk {@link #nextChunk()} reads. */
        public int chunk() {
            return next;
        }

        /** The seed ids of the next chunk, in file order; a timed file's times then come from {@link #lastTimes}. */
        public long[] nextChunk() throws IOException {
            if (next >= numChunks()) {
                throw new IllegalStateException("no chunk after " + (next - 1));
            }
            long[] ids = new long[chunkLength(next)];
            long[] chunkTimes = timed ? new long[ids.length] : null;
            int filled = 0;
            while (filled < ids.length) {
                if (!in.next()) {
                    throw new SeedFileChangedException(path + ":" + in.lineNumber() + ": the seed file ended early; it"
                            + " changed after the job was planned");
                }
                long id = in.parse();
                if (id >= 0) {
                    if (chunkTimes != null) {
                        chunkTimes[filled] = in.time;
                    }
                    ids[filled++] = id;
                }
            }
            times = chunkTimes;
            next++;
            return ids;
        }

        /**
         * The times of the seeds the last {@link #nextChunk} read, parallel to its ids (a fresh array per chunk); null
         * for an untimed file or before the first chunk.
         */
        public long[] lastTimes() {
            return times;
        }

        @Override
        public void close() throws IOException {
            in.close();
        }
    }

    /** The seed file is not the one the batches were planned over, or not there: retrying cannot help. */
    public static final class SeedFileChangedException extends IOException {
        private static final long serialVersionUID = 1L;

        SeedFileChangedException(String message) {
            super(message);
        }
    }

    /**
     * Lines of a seed file with their byte offsets and line numbers; parses one id, or an id and its time, per line.
     * Reads through its own buffer and parses plain digits ({@code id}, or {@code id time} apart by tabs or spaces, the
     * time maybe negative) in place (no String per line): a seed file can hold billions of lines. Anything else goes
     * to the general rule ({@link #parseText}), which accepts or names what is wrong.
     */
    private static final class LineStream implements Closeable {
        private final InputStream in;
        private final String name;
        /** Every byte read goes through it (the file's digest), or null. */
        private final MessageDigest digest;
        private final byte[] buffer = new byte[1 << 16];
        private int position;
        private int limit;
        private byte[] line = new byte[64];
        private int length;
        private long offset;
        private long lineNumber;
        /** The time of the line {@link #parse} read last when it gave one. */
        long time;
        /** The first line (so far) that gave a time, and the first that did not; 0 for none: all lines or none. */
        long timedLine;
        long untimedLine;

        LineStream(InputStream in, String name, long firstLine, MessageDigest digest) {
            this.in = in;
            this.name = name;
            this.lineNumber = firstLine - 1;
            this.digest = digest;
        }

        /** Takes the lines to be timed or not as line {@code line} is (a chunk of a file indexed before). */
        void expect(boolean timed, long line) {
            if (timed) {
                timedLine = line;
            } else {
                untimedLine = line;
            }
        }

        /** Byte offset of the next line. */
        long offset() {
            return offset;
        }

        /** Line number of the line {@link #next} read last. */
        long lineNumber() {
            return lineNumber;
        }

        /** Reads the next line (without its end); false at the end of the file. */
        boolean next() throws IOException {
            length = 0;
            boolean any = false;
            while (true) {
                if (position == limit && !fill()) {
                    if (any) {
                        lineNumber++;
                    }
                    return any;
                }
                any = true;
                int end = position;
                while (end < limit && buffer[end] != '\n') {
                    end++;
                }
                append(position, end - position);
                offset += end - position;
                if (end < limit) {
                    position = end + 1;
                    offset++;
                    lineNumber++;
                    return true;
                }
                position = end;
            }
        }

        private boolean fill() throws IOException {
            int read = in.read(buffer);
            while (read == 0) {
                read = in.read(buffer);
            }
            if (read < 0) {
                return false;
            }
            if (digest != null) {
                digest.update(buffer, 0, read);
            }
            position = 0;
            limit = read;
            return true;
        }

        private void append(int from, int count) {
            if (length + count > line.length) {
                line = Arrays.copyOf(line, Math.max(line.length * 2, length + count));
            }
            System.arraycopy(buffer, from, line, length, count);
            length += count;
        }

        /**
         * The line's seed id (its time, if it gives one, in {@link #time}), or -1 for a blank or # line; a bad line
         * fails naming the file and line.
         */
        long parse() {
            int from = 0;
            int to = length;
            while (from < to && (line[from] == ' ' || line[from] == '\t')) {
                from++;
            }
            while (to > from && (line[to - 1] == ' ' || line[to - 1] == '\t' || line[to - 1] == '\r')) {
                to--;
            }
            if (from == to || line[from] == '#') {
                return -1;
            }
            long id = 0;
            int i = from;
            for (; i < to; i++) {
                int digit = line[i] - '0';
                if (digit < 0 || digit > 9) {
                    break;
                }
                if (id > (Long.MAX_VALUE - digit) / 10) {
                    return parseText();
                }
                id = id * 10 + digit;
            }
            if (i == to) {
                record(false, 0);
                return id;
            }
            if (i == from || (line[i] != ' ' && line[i] != '\t')) {
                return parseText();
            }
            while (line[i] == ' ' || line[i] == '\t') {
                i++; // stops before to: the line's last byte is no blank
            }
            boolean negative = line[i] == '-';
            if (negative) {
                i++;
            }
            if (i == to) {
                return parseText();
            }
            long t = 0;
            for (; i < to; i++) {
                int digit = line[i] - '0';
                if (digit < 0 || digit > 9 || t > (Long.MAX_VALUE - digit) / 10) {
                    return parseText(); // Long.MIN_VALUE too: rare enough for the general rule
                }
                t = t * 10 + digit;
            }
            record(true, negative ? -t : t);
            return id;
        }

        /**
         * The general rule for one line, {@link SeedSet#parse}'s: the line as UTF-8, stripped, split at tabs and
         * spaces into an id and an optional time; the same checks in the same order, with the same messages.
         */
        private long parseText() {
            String token = new String(line, 0, length, StandardCharsets.UTF_8).strip();
            if (token.isEmpty() || token.startsWith("#")) {
                return -1;
            }
            String where = name + ":" + lineNumber;
            String[] fields = token.split("[\\t ]+");
            if (fields.length > 2) {
                throw new IllegalArgumentException(where + ": expected 'id' or 'id<TAB>time', got " + fields.length
                        + " fields");
            }
            long t = 0;
            if (fields.length == 2) {
                try {
                    t = Long.parseLong(fields[1]);
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException(where + ": seed time '" + fields[1] + "' is not a whole number");
                }
            }
            record(fields.length == 2, t);
            long id = SeedSet.parseId(fields[0], where);
            if (id == Long.MAX_VALUE && !fields[0].equals(Long.toString(Long.MAX_VALUE))) {
                throw new IllegalArgumentException(where + ": seed id '" + fields[0] + "' is beyond int64");
            }
            return id;
        }

        /** Records the line's time, if it gives one; fails unless every line gives one or none does. */
        private void record(boolean timed, long t) {
            time = t;
            if (timed ? timedLine == 0 : untimedLine == 0) {
                if (timed) {
                    timedLine = lineNumber;
                } else {
                    untimedLine = lineNumber;
                }
                if (timedLine > 0 && untimedLine > 0) {
                    throw new IllegalArgumentException(name + ":" + Math.max(timedLine, untimedLine) + ": line "
                            + timedLine + " gives a seed time and line " + untimedLine
                            + " does not (all lines or none)");
                }
            }
        }

        @Override
        public void close() throws IOException {
            in.close();
        }
    }
}
