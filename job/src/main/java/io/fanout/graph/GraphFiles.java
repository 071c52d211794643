package io.fanout.graph;

import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PushbackInputStream;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.GZIPInputStream;

/** Opening graph input files (plain or gzip, told by the magic bytes) and listing a directory's parts. */
public final class GraphFiles {
    private GraphFiles() {}

    /**
     * Opens {@code file}, decompressing it when it starts with the gzip magic bytes, whatever its name, and skipping a
     * UTF-8 byte-order mark at the start of its text ({@link ByteOrderMark}; inside the decompressed stream of a gzip
     * file). Every offset a reader counts in the stream is after the mark: readers that tile a file by offsets all
     * open it here, so they agree.
     */
    public static InputStream open(Path file) throws IOException {
        // FileInputStream, not Files.newInputStream: the latter's available() seeks, which fails on named pipes.
        PushbackInputStream in = new PushbackInputStream(new FileInputStream(file.toFile()), ByteOrderMark.LENGTH);
        try {
            byte[] magic = in.readNBytes(ByteOrderMark.LENGTH);
            if (ByteOrderMark.isMark(magic, magic.length)) {
                return in;
            }
            in.unread(magic);
            if (isGzipMagic(magic, Math.min(2, magic.length))) {
                return ByteOrderMark.skip(new GZIPInputStream(in, 1 << 16));
            }
            return in;
        } catch (IOException | RuntimeException e) {
            in.close();
            throw e;
        }
    }

    /** Whether {@code file} starts with the gzip magic bytes ({@link #open} decompresses it). */
    public static boolean isCompressed(Path file) throws IOException {
        try (InputStream in = new FileInputStream(file.toFile())) {
            byte[] magic = in.readNBytes(2);
            return isGzipMagic(magic, magic.length);
        }
    }

    /**
     * The bytes of an uncompressed file's text as {@link #open} streams it: its size less a byte-order mark's, so
     * byte ranges over the text ({@link GraphLoader#edgeSplits}) end where the stream does.
     */
    public static long textSize(Path file) throws IOException {
        try (InputStream in = new FileInputStream(file.toFile())) {
            byte[] head = in.readNBytes(ByteOrderMark.LENGTH);
            return Files.size(file) - (ByteOrderMark.isMark(head, head.length) ? ByteOrderMark.LENGTH : 0);
        }
    }

    private static boolean isGzipMagic(byte[] magic, int length) {
        return length == 2 && (magic[0] & 0xff) == 0x1f && (magic[1] & 0xff) == 0x8b;
    }

    /**
     * The files {@code path} stands for: itself if it is a file, else the directory's {@code prefix*.tsv} and
     * {@code prefix*.tsv.gz} files in sorted name order (plain string order); {@code kind} names them in errors.
     *
     * @throws NoSuchFileException if {@code path} does not exist
     * @throws GraphFormatException for a directory without such files
     */
    public static List<Path> parts(Path path, String prefix, String kind) throws IOException {
        if (!Files.exists(path)) {
            throw new NoSuchFileException(path.toString(), null, "path does not exist");
        }
        List<Path> files = new ArrayList<>();
        if (!Files.isDirectory(path)) {
            files.add(path);
            return files;
        }
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(path)) {
            for (Path entry : entries) {
                String name = entry.getFileName().toString();
                if (name.startsWith(prefix) && (name.endsWith(".tsv") || name.endsWith(".tsv.gz"))
                        && !Files.isDirectory(entry)) {
                    files.add(entry);
                }
            }
        }
        files.sort((a, b) -> a.getFileName().toString().compareTo(b.getFileName().toString()));
        if (files.isEmpty()) {
            throw new GraphFormatException(path, "no " + kind + " file (" + prefix + "*.tsv or " + prefix
                    + "*.tsv.gz) in this directory");
        }
        return files;
    }
}
