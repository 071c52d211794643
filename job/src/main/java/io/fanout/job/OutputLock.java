package io.fanout.job;

import io.fanout.config.ConfigException;
import io.fanout.config.FanoutJobConfig;
import io.fanout.config.FanoutOptions;
import io.fanout.config.OutputMode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.client.deployment.StandaloneClusterId;
import org.apache.flink.client.program.rest.RestClusterClient;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.DeploymentOptions;
import org.apache.flink.configuration.PipelineOptionsInternal;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The run lock of an {@code --output} directory: one Fanout run writes into a directory at a time, so two jobs
 * submitted at once into one new directory cannot both write every batch.
 *
 * <p>The submitting client creates {@code .fanout-run.lock} atomically (a hard link to a written file, else
 * {@code Files.createFile}: both fail if it exists, also on a mount the client and TaskManagers share) before it
 * reads the graph, and names the owner in it: host, process, the Flink job id once submitted. Restarts and failovers
 * of the job happen inside Flink and never see it. The lock is released by the job's file sink once it has committed
 * its last files ({@link ReleasingFileSink}, on a TaskManager), and by the client when its wait for the job ends (a
 * local or attached run: finished, failed or cancelled); a detached job that fails or is stopped keeps it,
 * identified by its Flink job id.
 *
 * <p>A lock whose owner is gone is stale and taken over with a warning: an in-process (MiniCluster) run whose process
 * on this host has ended, or a cluster job that Flink's REST API reports ended or does not know. A lock this client
 * cannot check (another host's process, an unreachable cluster) is taken over only with {@code --output-mode
 * overwrite}, or by deleting the file. Only plain paths and {@code file:} URIs are locked (other file systems have no
 * atomic create that Fanout can rely on).
 */
final class OutputLock implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(OutputLock.class);
    /** The lock's name in the output directory (hidden: readers of part files skip it). */
    static final String NAME = ".fanout-run.lock";
    /** Deployment targets whose job runs inside the submitting process: it ends when that process does. */
    private static final List<String> IN_PROCESS_TARGETS = List.of("local", "minicluster");
    private static final int ATTEMPTS = 5;

    private final Path file;
    private final Map<String, String> owner;
    private final boolean detachedTarget;
    /** Directories the lock created (the output and missing parents, deepest first). */
    private final List<Path> created;
    private volatile boolean submitted;

    private OutputLock(Path file, Map<String, String> owner, boolean detachedTarget, List<Path> created) {
        this.file = file;
        this.owner = owner;
        this.detachedTarget = detachedTarget;
        this.created = created;
    }

    /** Whether {@code name} is the lock or one of its temporary files (not an earlier run's output). */
    static boolean isLockFile(String name) {
        return name.startsWith(NAME);
    }

    /**
     * Takes the lock of {@code dir} (created if missing) for a run of {@code config} with these Flink settings;
     * null when the client cannot create the directory.
     *
     * @throws ConfigException naming the directory and the run that holds it
     */
    static OutputLock acquire(Path dir, FanoutJobConfig config, ReadableConfig flinkConf) throws IOException {
        List<Path> created = new java.util.ArrayList<>(); // deepest first: removed again if left empty
        for (Path d = dir.toAbsolutePath(); d != null && Files.notExists(d); d = d.getParent()) {
            created.add(d);
        }
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            // E.g. a path that only the TaskManagers have: their FileSink creates it, and nothing can be locked here.
            LOG.warn("--output {}: cannot create it on this client ({}), so not locked against a concurrent run", dir,
                    e.toString());
            return null;
        }
        Path file = dir.resolve(NAME);
        String target = flinkConf.get(DeploymentOptions.TARGET);
        boolean inProcess = target == null || IN_PROCESS_TARGETS.contains(target);
        Map<String, String> owner = new LinkedHashMap<>();
        owner.put("run", UUID.randomUUID().toString());
        owner.put("host", host());
        owner.put("pid", Long.toString(ProcessHandle.current().pid()));
        owner.put("pid-start-ms", Long.toString(startMillis(ProcessHandle.current())));
        owner.put("started", Instant.now().toString());
        owner.put("execution", inProcess ? "in-process" : "cluster " + target);
        owner.put("job", "fanout " + config.sampler + " " + config.graph);
        flinkConf.getOptional(PipelineOptionsInternal.PIPELINE_FIXED_JOB_ID)
                .ifPresent(id -> owner.put("flink-job-id", id));
        OutputLock lock = new OutputLock(file, owner, !inProcess && !flinkConf.get(DeploymentOptions.ATTACHED),
                created);
        for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
            if (lock.create()) {
                return lock;
            }
            Map<String, String> other = read(file);
            if (other == null) {
                continue; // released meanwhile
            }
            String why = lock.stale(other, flinkConf);
            if (why == null) {
                throw heldBy(config, file, other, "it is running", "wait for it to end or cancel it");
            }
            if (why.startsWith("?")) {
                if (config.outputMode != OutputMode.OVERWRITE) {
                    throw heldBy(config, file, other, "this client cannot tell whether it still runs ("
                            + why.substring(1) + ")", "if it has ended, delete " + file + " or give "
                            + FanoutJobConfig.name(FanoutOptions.OUTPUT_MODE) + " overwrite");
                }
                why = why.substring(1) + "; taken over as " + FanoutJobConfig.name(FanoutOptions.OUTPUT_MODE)
                        + " overwrite says";
            }
            lock.takeOver(other, why);
        }
        throw new ConfigException("Invalid value '" + config.output + "' for option "
                + FanoutJobConfig.name(FanoutOptions.OUTPUT) + ": other runs keep taking its lock " + file);
    }

    /** The Flink job that now writes the output (from the job listener); recorded so a later client can check it. */
    void submitted(JobID jobId) {
        submitted = true;
        owner.put("flink-job-id", jobId.toString());
        try {
            Map<String, String> now = read(file);
            if (now == null || !owner.get("run").equals(now.get("run"))) {
                return; // released already (a job that ended at once) or taken over: never create it again
            }
            Path tmp = write(file.resolveSibling(NAME + ".tmp-" + owner.get("run")));
            try {
                Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
            }
        } catch (IOException e) {
            LOG.warn("{}: cannot record Flink job {} in the lock ({}); a later run cannot check it", file, jobId,
                    e.toString());
        }
    }

    /** The global job parameter naming the run whose lock the job's file sink releases ({@link ReleasingFileSink}). */
    static final String RUN_PARAMETER = "fanout.output-lock.run";

    /** Passes this run's id to the job's operators, so the file sink releases this lock and no other. */
    void travelWith(StreamExecutionEnvironment env) {
        Configuration parameters = Configuration.fromMap(env.getConfig().getGlobalJobParameters().toMap());
        parameters.setString(RUN_PARAMETER, owner.get("run"));
        env.getConfig().setGlobalJobParameters(parameters);
    }

    /**
     * Deletes the lock {@code file} if it is still run {@code run}'s: after the job's last commit, on a TaskManager
     * (the directory is one the TaskManagers write). Returns whether it did.
     */
    static boolean releaseIfOwned(Path file, String run) throws IOException {
        Map<String, String> now = read(file);
        if (now == null || !run.equals(now.get("run"))) {
            return false;
        }
        Files.deleteIfExists(file);
        return true;
    }

    /** Releases the lock, unless a detached job was submitted: that job keeps it until it ends. */
    @Override
    public void close() {
        if (submitted && detachedTarget) {
            LOG.info("{}: kept for detached Flink job {}, which releases it after its last commit (if it fails or is"
                    + " stopped, a later run asks the cluster for its status)", file, owner.get("flink-job-id"));
            return;
        }
        try {
            Map<String, String> now = read(file);
            if (now != null && owner.get("run").equals(now.get("run"))) {
                Files.deleteIfExists(file);
                removeCreatedIfEmpty();
            } else if (now == null) {
                removeCreatedIfEmpty(); // released by the job's file sink already
            } else {
                LOG.warn("{}: no longer this run's lock at release (taken over by {})", file, describe(now));
            }
        } catch (IOException e) {
            LOG.warn("{}: cannot release the run lock ({}); delete it by hand", file, e.toString());
        }
    }

    /** A run refused after the lock (bad seeds, say) leaves no empty directory behind that the lock made. */
    private void removeCreatedIfEmpty() {
        for (Path dir : created) {
            try {
                Files.delete(dir); // fails unless empty
            } catch (IOException e) {
                return;
            }
        }
    }

    /** Creates the lock file with this run's owner lines; false if it exists. */
    private boolean create() throws IOException {
        Files.createDirectories(file.getParent()); // again: a refused run may have removed the one it made
        Path tmp = write(file.resolveSibling(NAME + ".tmp-" + owner.get("run")));
        try {
            // A hard link appears atomically with its content: a concurrent client never reads a half-written owner.
            Files.createLink(file, tmp);
            return true;
        } catch (FileAlreadyExistsException e) {
            return false;
        } catch (IOException | UnsupportedOperationException e) {
            try { // a file system without hard links: still atomic, owner written right after
                Files.write(Files.createFile(file), text().getBytes(StandardCharsets.UTF_8));
                return true;
            } catch (FileAlreadyExistsException exists) {
                return false;
            }
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    /**
     * Moves the stale lock of {@code other} aside and drops it, unless what was moved is a newer lock (another client
     * took the stale one over first): that is put back.
     */
    private void takeOver(Map<String, String> other, String why) throws IOException {
        Path aside = file.resolveSibling(NAME + ".stale-" + owner.get("run"));
        try {
            Files.move(file, aside, StandardCopyOption.ATOMIC_MOVE);
        } catch (NoSuchFileException e) {
            return; // someone else removed it: try to create ours again
        }
        Map<String, String> moved = read(aside);
        if (moved != null && !String.valueOf(moved.get("run")).equals(other.get("run"))) {
            try {
                Files.createLink(file, aside);
            } catch (IOException | UnsupportedOperationException e) {
                LOG.warn("{}: could not put back the lock of {} ({})", file, describe(moved), e.toString());
            }
            Files.deleteIfExists(aside);
            return;
        }
        Files.deleteIfExists(aside);
        LOG.warn("{}: stale lock of {} ({}): taken over", file, describe(other), why);
    }

    /**
     * Null while {@code other}'s run may be writing; else why it is stale. A reason starting with {@code ?} means this
     * client cannot check it.
     */
    private String stale(Map<String, String> other, ReadableConfig flinkConf) {
        if (other.isEmpty()) {
            return "?an empty lock file";
        }
        String jobId = other.get("flink-job-id");
        if (jobId != null && jobId.equals(owner.get("flink-job-id"))) {
            return "the same Flink job run again (a JobManager failover)";
        }
        boolean inProcess = "in-process".equals(other.get("execution"));
        if (!inProcess && jobId != null) {
            return jobStatus(jobId, flinkConf);
        }
        // An in-process run, or a cluster submission still before its job id: the owner process decides.
        if (!host().equals(other.get("host"))) {
            return "?its process is on host " + other.get("host");
        }
        long pid;
        try {
            pid = Long.parseLong(other.get("pid"));
        } catch (NumberFormatException e) {
            return "?no process id in it";
        }
        Optional<ProcessHandle> process = ProcessHandle.of(pid);
        long started = process.map(OutputLock::startMillis).orElse(-1L);
        long recorded = parseLong(other.get("pid-start-ms"));
        // The same pid with another start time is a later process that reused the number.
        if (process.isPresent() && process.get().isAlive() && (started < 0 || recorded < 0
                || Math.abs(started - recorded) < 1000)) {
            return null;
        }
        return "its process " + pid + " has ended";
    }

    /** Null while the cluster runs {@code jobId}; why not otherwise, {@code ?...} when the cluster cannot be asked. */
    static String jobStatus(String jobId, ReadableConfig flinkConf) {
        Configuration conf = Configuration.fromMap(flinkConf.toMap());
        conf.set(RestOptions.RETRY_MAX_ATTEMPTS, 0); // a refusal should not wait out Flink's 20 retries
        String where = conf.get(RestOptions.ADDRESS) + ":" + conf.get(RestOptions.PORT);
        try (RestClusterClient<StandaloneClusterId> client =
                new RestClusterClient<>(conf, StandaloneClusterId.getInstance())) {
            JobStatus status = client.getJobStatus(JobID.fromHexString(jobId)).get(30, TimeUnit.SECONDS);
            return status.isGloballyTerminalState() ? "its Flink job " + jobId + " is " + status : null;
        } catch (Exception e) {
            if (isNotFound(e)) {
                return "the cluster at " + where + " does not know its Flink job " + jobId;
            }
            return "?the cluster at " + where + " did not answer for Flink job " + jobId + ": " + e;
        }
    }

    private static boolean isNotFound(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            String name = t.getClass().getSimpleName();
            String message = String.valueOf(t.getMessage());
            if (name.equals("FlinkJobNotFoundException") || message.contains("NotFound")
                    || message.contains("404") || message.contains("could not be found")) {
                return true;
            }
        }
        return false;
    }

    private static ConfigException heldBy(FanoutJobConfig config, Path file, Map<String, String> other, String state,
            String wayOut) {
        return new ConfigException("Invalid value '" + config.output + "' for option "
                + FanoutJobConfig.name(FanoutOptions.OUTPUT) + ": another Fanout run holds the directory (" + file
                + ": " + describe(other) + ") and " + state + "; two runs into one directory would write every batch"
                + " twice: " + wayOut + ", or give another " + FanoutJobConfig.name(FanoutOptions.OUTPUT));
    }

    /** The owner of a lock, for messages. */
    static String describe(Map<String, String> owner) {
        if (owner == null || owner.isEmpty()) {
            return "no owner written";
        }
        StringBuilder text = new StringBuilder(String.valueOf(owner.get("job")));
        text.append(", started ").append(owner.get("started")).append(" by process ").append(owner.get("pid"))
                .append(" on host ").append(owner.get("host")).append(", ").append(owner.get("execution"));
        if (owner.get("flink-job-id") != null) {
            text.append(", Flink job ").append(owner.get("flink-job-id"));
        }
        return text.append(", run ").append(owner.get("run")).toString();
    }

    private Path write(Path tmp) throws IOException {
        return Files.write(tmp, text().getBytes(StandardCharsets.UTF_8));
    }

    private String text() {
        StringBuilder text = new StringBuilder("# The Fanout run writing into this directory. Delete this file only if"
                + " that run has ended.\n");
        owner.forEach((key, value) -> text.append(key).append('=').append(value).append('\n'));
        return text.toString();
    }

    /** The owner lines of a lock file, or null if there is none. */
    static Map<String, String> read(Path file) throws IOException {
        List<String> lines;
        try {
            lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            return null;
        }
        Map<String, String> owner = new LinkedHashMap<>();
        for (String line : lines) {
            int eq = line.indexOf('=');
            if (!line.startsWith("#") && eq > 0) {
                owner.put(line.substring(0, eq), line.substring(eq + 1));
            }
        }
        return owner;
    }

    private static long startMillis(ProcessHandle process) {
        return process.info().startInstant().map(Instant::toEpochMilli).orElse(-1L);
    }

    private static long parseLong(String text) {
        try {
            return text == null ? -1 : Long.parseLong(text);
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    private static String host() {
        try {
            return java.net.InetAddress.getLocalHost().getHostName();
        } catch (java.net.UnknownHostException e) {
            return "unknown";
        }
    }
}
