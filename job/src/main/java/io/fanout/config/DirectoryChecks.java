package io.fanout.config;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.flink.configuration.ConfigOption;

/**
 * Checks on the client that a directory option (output, registry, shm dir, checkpoints) can be written, so that
 * a bad path is one error before submission instead of a job that fails and restarts for ever.
 *
 * <p>Plain paths and {@code file:} URIs are checked; other file systems ({@code s3://}, {@code hdfs://}) are left
 * to Flink. Nothing is created: the directory must exist and take a file, or its nearest existing ancestor must
 * be a directory that takes one (checked by creating and deleting a hidden probe file there, because the access
 * bits say nothing for root or on a read-only mount).
 */
public final class DirectoryChecks {
    private DirectoryChecks() {}

    /**
     * The local path of a plain path or {@code file:} URI as Flink reads it, or null for a URI of another
     * file system.
     */
    public static Path localPath(String value) {
        URI uri = new org.apache.flink.core.fs.Path(value).toUri();
        if (uri.getScheme() != null && !uri.getScheme().equals("file")) {
            return null;
        }
        return Path.of(uri.getPath());
    }

    /** Fails naming option, value and why when value is a local directory path that cannot be written. */
    public static void requireWritable(ConfigOption<?> option, String value) {
        Path local;
        try {
            local = localPath(value);
        } catch (IllegalArgumentException e) { // Flink's Path refuses e.g. an empty string
            throw new ConfigException("Invalid value '" + value + "' for option " + FanoutJobConfig.name(option)
                    + ": " + e.getMessage(), e);
        }
        if (local == null) {
            return;
        }
        String problem = problem(local.toAbsolutePath().normalize());
        if (problem != null) {
            throw new ConfigException("Invalid value '" + value + "' for option " + FanoutJobConfig.name(option)
                    + ": " + problem);
        }
    }

    /** Why dir cannot be used as a directory to write into, or null when it can. */
    private static String problem(Path dir) {
        if (Files.exists(dir)) {
            if (!Files.isDirectory(dir)) {
                return "it is " + kind(dir) + ", not a directory";
            }
            String unwritable = unwritable(dir);
            return unwritable == null ? null : "the directory is not writable (" + unwritable + ")";
        }
        Path parent = dir.getParent();
        while (parent != null && !Files.exists(parent)) {
            parent = parent.getParent();
        }
        if (parent == null) {
            return null; // no ancestor exists (not on a real file system): let the sink report it
        }
        if (!Files.isDirectory(parent)) {
            return "a parent, " + parent + ", is " + kind(parent);
        }
        String unwritable = unwritable(parent);
        return unwritable == null ? null
                : "it does not exist and cannot be created: " + parent + " is not writable (" + unwritable + ")";
    }

    private static String kind(Path path) {
        return Files.isRegularFile(path) ? "a regular file" : "not a directory";
    }

    /** Null when a file can be created in dir, else the reason it cannot. */
    private static String unwritable(Path dir) {
        try {
            Files.delete(Files.createTempFile(dir, ".fanout-write-check-", ".tmp"));
            return null;
        } catch (IOException e) {
            return ConfigException.reason(e);
        }
    }
}
