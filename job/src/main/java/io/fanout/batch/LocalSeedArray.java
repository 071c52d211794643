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
 * The ids of a {@link SeedFile} copied in position order into a local file of 8-byte ids, so that a worker can read
 * any batch's seeds by position without holding them: a text seed file has no random access by seed, and a
 * shuffled batch's seeds come from all over it.
 *
 * <p>Written in one streaming pass over the seed file ({@link SeedFile#open}, which fails naming the file when it
 * changed since the job was planned); read with positional reads that take a run of consecutive positions (an
 * unshuffled batch) at once. {@link #close} deletes the file.
 */
public final class LocalSeedArray implements Closeable {
    private static final int ID_BYTES = Long.BYTES;
    /** The write buffer, and the most ids one positional read takes. */
    private static final int BUFFER_IDS = 8192;

    private final Path file;
    private final FileChannel channel;
    private final long numSeeds;
    private final ByteBuffer buffer = ByteBuffer.allocate(BUFFER_IDS * ID_BYTES).order(ByteOrder.LITTLE_ENDIAN);

    private LocalSeedArray(Path file, FileChannel channel, long numSeeds) {
        this.file = file;
        this.channel = channel;
        this.numSeeds = numSeeds;
    }

    /** Copies every seed of {@code seeds} into a new file in {@code dir}. */
    public static LocalSeedArray write(SeedFile seeds, Path dir) throws IOException {
        Files.createDirectories(dir);
        Path file = Files.createTempFile(dir, "fanout-seeds-", ".i64");
        try {
            ByteBuffer out = ByteBuffer.allocate(BUFFER_IDS * ID_BYTES).order(ByteOrder.LITTLE_ENDIAN);
            try (SeedFile.Cursor cursor = seeds.open(0);
                    FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
                for (int chunk = 0; chunk < seeds.numChunks(); chunk++) {
                    for (long id : cursor.nextChunk()) {
                        if (!out.hasRemaining()) {
                            drain(out, channel);
                        }
                        out.putLong(id);
                    }
                }
                drain(out, channel);
            }
            return new LocalSeedArray(file, FileChannel.open(file, StandardOpenOption.READ), seeds.numSeeds());
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

    /** The local file (for logs and tests). */
    public Path file() {
        return file;
    }

    /** The seed ids at {@code positions}, in their order. */
    public long[] read(int[] positions) throws IOException {
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
            buffer.clear().limit(run * ID_BYTES);
            long at = first * ID_BYTES;
            while (buffer.hasRemaining()) {
                int read = channel.read(buffer, at + buffer.position());
                if (read < 0) {
                    throw new EOFException(file + ": the local seed copy ended at byte " + (at + buffer.position()));
                }
            }
            buffer.flip();
            for (int k = 0; k < run; k++) {
                ids[i + k] = buffer.getLong();
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
