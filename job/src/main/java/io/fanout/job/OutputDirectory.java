package io.fanout.job;

import io.fanout.config.ConfigException;
import io.fanout.config.FanoutJobConfig;
import io.fanout.config.FanoutOptions;
import io.fanout.config.OutputMode;
import io.fanout.connectors.file.SamplesFileSink;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.core.fs.FileStatus;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies {@code fanout.output-mode} to the {@code --output} directory of a fresh submission, on the client:
 * the FileSink names its part files uniquely per run, so without this a second run into the same directory
 * silently holds every batch twice.
 *
 * <p>Only the client's {@code main} gets here: a job restarted after a failure never does, and a submission that
 * restores a savepoint ({@code -s}, {@code execution.state-recovery.path}) is let through, because both continue
 * their own output. Works on any Flink file system (listing and deleting through Flink's {@link FileSystem}).
 */
final class OutputDirectory {
    private static final Logger LOG = LoggerFactory.getLogger(OutputDirectory.class);

    private final String value;
    private final Path dir;
    /** Fanout's part files to delete before the run ({@code overwrite}); empty otherwise. */
    private final List<Path> toDelete;

    private OutputDirectory(String value, Path dir, List<Path> toDelete) {
        this.value = value;
        this.dir = dir;
        this.toDelete = toDelete;
    }

    /**
     * Checks the output directory of a run with these Flink settings: a non-empty one is refused in
     * {@code error} mode (before the graph is scanned); {@link #prepare} later deletes in {@code overwrite} mode.
     */
    static OutputDirectory check(FanoutJobConfig config, ReadableConfig flinkConf) throws IOException {
        Path dir = new Path(FanoutJob.absoluteLocalPath(config.output));
        OutputDirectory keep = new OutputDirectory(config.output, dir, List.of());
        if (flinkConf.get(StateRecoveryOptions.SAVEPOINT_PATH) != null || config.outputMode == OutputMode.APPEND) {
            return keep;
        }
        FileStatus[] entries = list(dir);
        if (entries == null || entries.length == 0) {
            return keep;
        }
        if (config.outputMode == OutputMode.ERROR) {
            String first = null;
            for (FileStatus entry : entries) {
                String name = entry.getPath().getName();
                first = first == null || name.compareTo(first) < 0 ? name : first;
            }
            throw new ConfigException("Invalid value '" + config.output + "' for option "
                    + FanoutJobConfig.name(FanoutOptions.OUTPUT) + ": the directory is not empty (" + entries.length
                    + (entries.length == 1 ? " entry: " : " entries, e.g. ") + first + "); give "
                    + FanoutJobConfig.name(FanoutOptions.OUTPUT_MODE) + " overwrite to delete Fanout's part files"
                    + " first, or append to add this run's to them");
        }
        List<Path> parts = new ArrayList<>();
        for (FileStatus entry : entries) {
            if (!entry.isDir() && isPartFile(entry.getPath().getName())) {
                parts.add(entry.getPath());
            }
        }
        return new OutputDirectory(config.output, dir, parts);
    }

    /** The entries of dir; null when it does not exist, or when the client cannot list another file system. */
    private static FileStatus[] list(Path dir) throws IOException {
        try {
            FileSystem fs = dir.getFileSystem();
            return fs.exists(dir) ? fs.listStatus(dir) : null;
        } catch (IOException e) {
            String scheme = dir.toUri().getScheme();
            if (scheme == null || scheme.equals("file")) {
                throw e;
            }
            // The cluster may have the plugin or credentials the submitting client lacks: leave it to Flink.
            LOG.warn("--output {}: cannot list it from the client ({}); not checked for an earlier run's files", dir,
                    e.toString());
            return null;
        }
    }

    /** What the FileSink writes: finished {@code part-*.samples} and hidden {@code .part-*.inprogress.*} files. */
    static boolean isPartFile(String name) {
        return (name.startsWith("part-") && name.endsWith(SamplesFileSink.SUFFIX))
                || (name.startsWith(".part-") && name.contains(SamplesFileSink.SUFFIX + ".inprogress."));
    }

    /** Deletes the part files found by {@link #check} in {@code overwrite} mode; call right before submitting. */
    void prepare() throws IOException {
        if (toDelete.isEmpty()) {
            return;
        }
        FileSystem fs = dir.getFileSystem();
        for (Path part : toDelete) {
            if (!fs.delete(part, false) && fs.exists(part)) {
                throw new IOException("--output-mode overwrite: cannot delete " + part + " in " + value);
            }
        }
        LOG.info("--output-mode overwrite: deleted {} part files of an earlier run from {}", toDelete.size(), dir);
    }
}
