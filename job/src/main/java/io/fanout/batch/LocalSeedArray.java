package io.fanout.batch;

import java.io.Closeable;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * The ids of a {@link SeedFile} copied in position order into a local file of 8-byte ids (16-byte id and time records
 * for a {@link SeedFile#timed} file), so that a worker can read any batch's seeds by position without holding them: a
 * text seed file has no random access by seed, and a shuffled batch's seeds come from all over it.
 *
 * <p>Written in one streaming pass over the seed file ({@link SeedFile#open}, which fails naming the file when it
 * changed since the job was planned); read with positional reads that take a run of consecutive positions (an
 * unshuffled batch) at once. {@link #close} deletes the file.
 */
public final class LocalSeedArray implements Closeable {
    /** The write buffer, and the most seeds one positional read takes. */
    private static final int BUFFER_IDS = 8192;

    private final Path file;
    private final FileChannel channel;
    private final long numSeeds;
    private final boolean timed;
    /** Bytes per seed: its id, then its time when timed (one read takes both). */
    private final int recordBytes;
    private final ByteBuffer buffer;

    private LocalSeedArray(Path file, FileChannel channel, long numSeeds, boolean timed) {
        this.file = file;
        this.channel = channel;
        this.numSeeds = numSeeds;
        this.timed = timed;
        this.recordBytes = recordBytes(timed);
        this.buffer = ByteBuffer.allocate(BUFFER_IDS * recordBytes).order(ByteOrder.LITTLE_ENDIAN);
    }

    private static int recordBytes(boolean timed) {
        return timed ? 2 * Long.BYTES : Long.BYTES;
    }

    /** Copies every seed of {@code seeds} (with its time, for a timed file) into a new file in {@code dir}. */
    public static LocalSeedArray write(SeedFile seeds, Path dir) throws IOException {
        Files.createDirectories(dir);
        boolean timed = seeds.timed();
        Path file = Files.createTempFile(dir, "fanout-seeds-", timed ? ".i64x2" : ".i64");
        try {
            // Whole records per buffer: a full one has no room left for the next.
            ByteBuffer out = ByteBuffer.allocate(BUFFER_IDS * recordBytes(timed)).order(ByteOrder.LITTLE_ENDIAN);
            try (SeedFile.Cursor cursor = seeds.open(0);
                    FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
                for (int chunk = 0; chunk < seeds.numChunks(); chunk++) {
                    long[] ids = cursor.nextChunk();
                    long[] times = cursor.lastTimes();
                    for (int i = 0; i < ids.length; i++) {
                        if (!out.hasRemaining()) {
                            drain(out, channel);
                        }
                        out.putLong(ids[i]);
                        if (timed) {
                            out.putLong(times[i]);
                        }
                    }
                }
                drain(out, channel);
            }
            return new LocalSeedArray(file, FileChannel.open(file, StandardOpenOption.READ), seeds.numSeeds(), timed);
        } catch (IOException | RuntimeException e) {
            Files.deleteIfExists(file);
            throw e;
        }
    }

    private static void drain(ByteBuffer out, FileChannel channel) throws IOException {
        out.flip();
        while (out.hasRemaining()) {
            channel.write(out);
        }
        out.clear();
    }

    public long numSeeds() {
        return numSeeds;
    }

    /** True when the copy holds the seeds' times too ({@link SeedFile#timed}). */
    public boolean timed() {
        return timed;
    }

    /** The local file (for logs and tests). */
    public Path file() {
        return file;
    }

    /** The local file's size: {@link #numSeeds} records of 8 bytes, or 16 when timed. */
    public long bytes() {
        return numSeeds * recordBytes;
    }

    /** The seed ids at {@code positions}, in their order. */
    public long[] read(int[] positions) throws IOException {
        return read(positions, null);
    }

    /**
     * The seed ids at {@code positions}, in their order; their times, read with them, into {@code times} (as long as
     * {@code positions}) unless it is null.
     *
     * @throws IllegalStateException if {@code times} is given for a copy without times
     */
    public long[] read(int[] positions, long[] times) throws IOException {
        if (times != null && !timed) {
            throw new IllegalStateException(file + ": the seed file gave no times");
        }
        long[] ids = new long[positions.length];
        int i = 0;
        while (i < positions.length) {
            long first = positions[i];
            if (first < 0 || first >= numSeeds) {
                throw new IndexOutOfBoundsException("seed position " + first + " out of 0.." + (numSeeds - 1));
            }
            int run = 1;
            while (i + run < positions.length && run < BUFFER_IDS && positions[i + run] == first + run
                    && first + run < numSeeds) {
                run++;
            }
            buffer.clear().limit(run * recordBytes);
            long at = first * recordBytes;
            while (buffer.hasRemaining()) {
                int read = channel.read(buffer, at + buffer.position());
                if (read < 0) {
                    throw new EOFException(file + ": the local seed copy ended at byte " + (at + buffer.position()));
                }
            }
            buffer.flip();
            for (int k = 0; k < run; k++) {
                ids[i + k] = buffer.getLong();
                if (timed) {
                    long time = buffer.getLong();
                    if (times != null) {
                        times[i + k] = time;
                    }
                }
            }
            i += run;
        }
        return ids;
    }

    @Override
    public void close() throws IOException {
        try {
            channel.close();
        } finally {
            Files.deleteIfExists(file);
        }
    }
}
