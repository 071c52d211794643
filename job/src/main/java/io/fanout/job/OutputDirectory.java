package io.fanout.job;

import io.fanout.config.ConfigException;
import io.fanout.config.FanoutJobConfig;
import io.fanout.config.FanoutOptions;
import io.fanout.config.OutputMode;
import io.fanout.connectors.file.SamplesFileSink;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.JobListener;
import org.apache.flink.core.fs.FileStatus;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
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
 *
 * <p>A local directory is also locked for the run ({@link OutputLock}), in every mode: a second submission while
 * the first runs is refused. Close it when the client is done with the job.
 */
final class OutputDirectory implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(OutputDirectory.class);

    private final String value;
    private final Path dir;
    /** Fanout's part files to delete before the run ({@code overwrite}); empty otherwise. */
    private final List<Path> toDelete;
    /** The run lock of a local directory, or null. */
    private OutputLock lock;

    private OutputDirectory(String value, Path dir, List<Path> toDelete) {
        this.value = value;
        this.dir = dir;
        this.toDelete = toDelete;
    }

    /**
     * As {@link #check(FanoutJobConfig, ReadableConfig)} for a run in {@code env}, whose submitted job id goes into
     * the lock (a later client checks a detached job by it).
     */
    static OutputDirectory check(FanoutJobConfig config, StreamExecutionEnvironment env) throws IOException {
        OutputDirectory output = check(config, env.getConfiguration());
        if (output.lock != null) {
            OutputLock lock = output.lock;
            lock.travelWith(env); // the job's file sink releases it when it has committed everything
            env.registerJobListener(new JobListener() {
                @Override
                public void onJobSubmitted(JobClient client, Throwable failure) {
                    if (client != null) {
                        lock.submitted(client.getJobID());
                    }
                }

                @Override
                public void onJobExecuted(JobExecutionResult result, Throwable failure) {}
            });
        }
        return output;
    }

    /**
     * Checks the output directory of a run with these Flink settings: a non-empty one is refused in
     * {@code error} mode (before the graph is scanned); {@link #prepare} later deletes in {@code overwrite} mode.
     */
    static OutputDirectory check(FanoutJobConfig config, ReadableConfig flinkConf) throws IOException {
        Path dir = new Path(SeedPlanning.absoluteLocalPath(config.output));
        java.nio.file.Path local = localPath(dir);
        OutputLock lock = null;
        if (local == null) {
            LOG.info("--output {}: not a local path, so not locked against a concurrent run", dir);
        } else {
            lock = OutputLock.acquire(local, config, flinkConf);
        }
        try {
            OutputDirectory output = check(config, flinkConf, dir);
            output.lock = lock;
            return output;
        } catch (IOException | RuntimeException e) {
            if (lock != null) {
                lock.close();
            }
            throw e;
        }
    }

    private static OutputDirectory check(FanoutJobConfig config, ReadableConfig flinkConf, Path dir)
            throws IOException {
        OutputDirectory keep = new OutputDirectory(config.output, dir, List.of());
        if (flinkConf.get(StateRecoveryOptions.SAVEPOINT_PATH) != null || config.outputMode == OutputMode.APPEND) {
            return keep;
        }
        FileStatus[] entries = list(dir);
        if (entries != null) { // this run's lock is not an earlier run's output
            entries = java.util.Arrays.stream(entries).filter(e -> !OutputLock.isLockFile(e.getPath().getName()))
                    .toArray(FileStatus[]::new);
        }
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

    /** The local file system path of dir (a plain path or a file: URI), or null for another file system. */
    private static java.nio.file.Path localPath(Path dir) {
        String scheme = dir.toUri().getScheme();
        return scheme == null || scheme.equals("file") ? java.nio.file.Path.of(dir.toUri().getPath()) : null;
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

    /** Releases the run lock (a detached job keeps it). */
    @Override
    public void close() {
        if (lock != null) {
            lock.close();
        }
    }
}
