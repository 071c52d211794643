package io.fanout.connectors.file;

import java.io.BufferedInputStream;
import java.io.Closeable;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.Channels;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The offline {@code .samples} file: a sequence of records, each a u64 little-endian length N then
 * one N-byte safetensors blob (docs/message-format.md). No file header, so files concatenate.
 */
public final class SamplesFile {
    /** File name extension. */
    public static final String EXTENSION = ".samples";

    private SamplesFile() {}

    /** Appends one record (length prefix + blob) to {@code out}. */
    public static void writeRecord(OutputStream out, byte[] blob) throws IOException {
        writeRecord(out, blob, blob.length);
    }

    /** Appends one record of the blob {@code blob[0, length)} to {@code out}. */
    public static void writeRecord(OutputStream out, byte[] blob, int length) throws IOException {
        byte[] prefix = new byte[8];
        ByteBuffer.wrap(prefix).order(ByteOrder.LITTLE_ENDIAN).putLong(length);
        out.write(prefix);
        out.write(blob, 0, length);
    }

    /** Opens {@code file} for reading its blobs in order. */
    public static Reader open(Path file) throws IOException {
        return open(file, 0);
    }

    /**
     * Opens {@code file} for reading its blobs from byte {@code offset} on, which must be a record
     * boundary (0, or a {@link Reader#offset()} of an earlier reader): how a checkpointed reader resumes.
     */
    public static Reader open(Path file, long offset) throws IOException {
        long size = Files.size(file);
        if (offset < 0 || offset > size) {
            throw new IOException(file + ": cannot resume at byte " + offset + " of a " + size + "-byte file");
        }
        SeekableByteChannel ch = Files.newByteChannel(file);
        ch.position(offset);
        return new Reader(file, new BufferedInputStream(Channels.newInputStream(ch), 1 << 16), offset);
    }

    /**
     * The finished {@code .samples} files under a directory, recursively, in path order; hidden and
     * in-progress files (names starting with '.' or '_', as FileSink and the Python client write them)
     * are skipped.
     */
    public static List<Path> listFiles(Path dir) throws IOException {
        try (Stream<Path> paths = Files.walk(dir)) {
            return paths.filter(Files::isRegularFile)
                    .filter(p -> {
                        String name = p.getFileName().toString();
                        return name.endsWith(EXTENSION) && !name.startsWith(".") && !name.startsWith("_");
                    })
                    .sorted()
                    .collect(Collectors.toList());
        }
    }

    /** Every blob of a {@code .samples} file, or of every finished file under a directory. */
    public static List<byte[]> readAll(Path path) throws IOException {
        List<Path> files = Files.isRegularFile(path) ? List.of(path) : listFiles(path);
        List<byte[]> all = new ArrayList<>();
        for (Path file : files) {
            try (Reader reader = open(file)) {
                reader.forEachRemaining(all::add);
            } catch (UncheckedIOException e) {
                throw e.getCause();
            }
        }
        return all;
    }

    /** Iterates the blobs of one file; errors name the file and the record's byte offset. */
    public static final class Reader implements Iterator<byte[]>, Closeable {
        private final Path file;
        private final InputStream in;
        private final long size;
        private long offset;
        /** Byte offset just past the last blob returned by {@link #next()}. */
        private long consumed;
        private byte[] next;
        private boolean ended;

        private Reader(Path file, InputStream in, long offset) throws IOException {
            this.file = file;
            this.in = in;
            this.size = Files.size(file);
            this.offset = offset;
            this.consumed = offset;
        }

        /** Byte offset of the record after the last one {@link #next()} returned (a resume point for {@link SamplesFile#open(Path, long)}). */
        public long offset() {
            return consumed;
        }

        @Override
        public boolean hasNext() {
            if (next == null && !ended) {
                try {
                    next = readRecord();
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
                ended = next == null;
            }
            return next != null;
        }

        @Override
        public byte[] next() {
            if (!hasNext()) {
                throw new NoSuchElementException("end of " + file);
            }
            byte[] b = next;
            next = null;
            consumed = offset;
            return b;
        }

        private byte[] readRecord() throws IOException {
            byte[] len = new byte[8];
            int got = in.readNBytes(len, 0, 8);
            if (got == 0) {
                return null;
            }
            if (got < 8) {
                throw new EOFException(file + ": truncated record length at byte " + offset);
            }
            long n = ByteBuffer.wrap(len).order(ByteOrder.LITTLE_ENDIAN).getLong();
            if (n < 0 || n > Integer.MAX_VALUE - 16 || offset + 8 + n > size) {
                throw new IOException(file + ": record at byte " + offset + " claims " + Long.toUnsignedString(n) + " bytes, "
                        + (size - offset - 8) + " remain");
            }
            byte[] blob = in.readNBytes((int) n);
            if (blob.length < n) {
                throw new EOFException(file + ": truncated record at byte " + offset);
            }
            offset += 8 + n;
            return blob;
        }

        @Override
        public void close() throws IOException {
            in.close();
        }
    }
}
