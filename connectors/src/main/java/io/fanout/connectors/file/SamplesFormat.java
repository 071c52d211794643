package io.fanout.connectors.file;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The offline {@code .samples} file format: a sequence of records, each an 8-byte little-endian length
 * N followed by one N-byte safetensors blob (connectors/MESSAGE_FORMAT.md).
 */
public final class SamplesFormat {
    /** File name suffix of finished files. */
    public static final String SUFFIX = ".samples";
    /** Largest record accepted on read: a guard against reading garbage as a length. */
    public static final long MAX_RECORD_BYTES = 1L << 31;

    private SamplesFormat() {}

    public static void writeRecord(OutputStream out, byte[] blob) throws IOException {
        long n = blob.length;
        byte[] header = new byte[8];
        for (int i = 0; i < 8; i++) {
            header[i] = (byte) (n >>> (8 * i));
        }
        out.write(header);
        out.write(blob);
    }

    /** Reads every record of one file; a truncated record is an error naming the file and offset. */
    public static List<byte[]> readFile(Path file) throws IOException {
        List<byte[]> records = new ArrayList<>();
        try (InputStream in = new java.io.BufferedInputStream(Files.newInputStream(file), 1 << 16)) {
            long offset = 0;
            byte[] header = new byte[8];
            while (true) {
                int got = in.readNBytes(header, 0, 8);
                if (got == 0) {
                    return records;
                }
                if (got < 8) {
                    throw new EOFException(file + ": truncated record length at byte offset " + offset);
                }
                long n = 0;
                for (int i = 7; i >= 0; i--) {
                    n = (n << 8) | (header[i] & 0xff);
                }
                if (n < 0 || n >= MAX_RECORD_BYTES) {
                    throw new IOException(file + ": bad record length " + n + " at byte offset " + offset);
                }
                byte[] blob = in.readNBytes((int) n);
                if (blob.length < n) {
                    throw new EOFException(file + ": truncated record at byte offset " + offset + " (expected " + n
                            + " bytes, found " + blob.length + ")");
                }
                records.add(blob);
                offset += 8 + n;
            }
        }
    }

    /**
     * The finished {@code .samples} files under a directory, recursively, in path order; hidden and
     * in-progress files (names starting with '.' or '_') are skipped.
     */
    public static List<Path> listFiles(Path dir) throws IOException {
        try (Stream<Path> paths = Files.walk(dir)) {
            return paths.filter(Files::isRegularFile)
                    .filter(p -> p.getFileName().toString().endsWith(SUFFIX))
                    .filter(p -> !p.getFileName().toString().startsWith(".") && !p.getFileName().toString().startsWith("_"))
                    .sorted()
                    .collect(Collectors.toList());
        }
    }

    /** Every record of every finished file under dir (or of the file itself). */
    public static List<byte[]> readAll(Path path) throws IOException {
        if (Files.isRegularFile(path)) {
            return readFile(path);
        }
        List<byte[]> all = new ArrayList<>();
        for (Path file : listFiles(path)) {
            all.addAll(readFile(file));
        }
        return all;
    }
}
