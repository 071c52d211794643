package io.fanout.job;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.batch.BatchPlan;
import io.fanout.config.ConfigException;
import io.fanout.config.FanoutJobConfig;
import io.fanout.connectors.file.SamplesFileSink;
import io.fanout.connectors.message.EncodedMessage;
import io.fanout.connectors.testing.Waits;
import io.fanout.flink.source.EpochWatermarks;
import io.fanout.flink.source.SeedBatchSource;
import io.fanout.store.GraphStore;
import io.fanout.testing.FailOnceAfterCheckpoint;
import io.fanout.testing.JobConfigs;
import io.fanout.testing.MiniClusters;
import io.fanout.testing.SharedData;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.DeploymentOptions;
import org.apache.flink.configuration.PipelineOptionsInternal;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The run lock of {@code --output}: two real cora jobs submitted at once into one new directory (one runs, the other
 * is refused at once), stale locks of ended runs and jobs, locks this client cannot check, and a job that fails over
 * while it holds the lock.
 */
@Timeout(180)
class OutputLockITCase {
    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = MiniClusters.oneTaskManagerTwoSlots();

    /** cora in batches of 512: 6 messages per run. */
    private static final int BATCHES = 6;

    @TempDir
    Path tmp;

    private final String cora = SharedData.graph("cora").toString();

    private String[] args(Path out, String... more) {
        return Stream.concat(Stream.of("--graph", cora, "--batch-size", "512", "--parallelism", "1", "--output",
                out.toString()), Stream.of(more)).toArray(String[]::new);
    }

    @Test
    void twoClientsTakingOneNewDirectoryAtOnceGetOneLock() throws Exception {
        // The race itself, without Flink: two clients creating the lock of one new directory at the same moment.
        for (int round = 0; round < 20; round++) {
            Path out = tmp.resolve("race-" + round);
            FanoutJobConfig config = JobConfigs.parse(args(out));
            CyclicBarrier start = new CyclicBarrier(2);
            ExecutorService clients = Executors.newFixedThreadPool(2);
            try {
                List<Future<OutputLock>> takes = new ArrayList<>();
                for (int i = 0; i < 2; i++) {
                    takes.add(clients.submit(() -> {
                        start.await(30, TimeUnit.SECONDS);
                        return OutputLock.acquire(out, config, new Configuration());
                    }));
                }
                List<OutputLock> held = new ArrayList<>();
                List<Throwable> refused = new ArrayList<>();
                for (Future<OutputLock> take : takes) {
                    try {
                        held.add(take.get(60, TimeUnit.SECONDS));
                    } catch (java.util.concurrent.ExecutionException e) {
                        refused.add(e.getCause());
                    }
                }
                assertThat(held).as("round %d: locks taken (refused: %s)", round, refused).hasSize(1);
                assertThat(refused.get(0)).isInstanceOf(ConfigException.class)
                        .hasMessageContaining("another Fanout run holds the directory");
                held.get(0).close();
                assertThat(out.resolve(OutputLock.NAME)).doesNotExist();
            } finally {
                clients.shutdownNow();
            }
        }
    }

    @Test
    void aSecondSubmissionWhileTheFirstRunsIsRefusedAndEveryBatchIsWrittenOnce() throws Exception {
        Path out = tmp.resolve("new-out");
        ExecutorService clients = Executors.newSingleThreadExecutor();
        try {
            // Paced (2 batches/s, 6 batches): the first run holds the directory for about 3 s.
            Future<JobSummary> first = clients.submit(() -> FanoutJobITCase.runJob(args(out,
                    "--max-batches-per-second", "2")));
            Waits.until("the first run took the lock (or ended)", Duration.ofSeconds(60),
                    () -> Files.exists(out.resolve(OutputLock.NAME)) || first.isDone());
            assertThat(out.resolve(OutputLock.NAME)).as("the first run's lock").exists();
            assertThatThrownBy(() -> FanoutJobITCase.runJob(args(out))).isInstanceOf(ConfigException.class)
                    .hasMessageStartingWith("Invalid value '" + out + "' for option fanout.output (--output): another"
                            + " Fanout run holds the directory (" + out.resolve(OutputLock.NAME))
                    .hasMessageContaining("by process " + ProcessHandle.current().pid())
                    .hasMessageContaining("and it is running; two runs into one directory would write every batch"
                            + " twice")
                    .hasMessageNotContaining("not empty");
            assertThat(first.get(150, TimeUnit.SECONDS)).isNotNull();
        } finally {
            clients.shutdownNow();
        }
        assertThat(FanoutJobITCase.readMessages(out)).as("every batch once").hasSize(BATCHES);
        assertThat(out.resolve(OutputLock.NAME)).as("released when the run ended").doesNotExist();
        // The next fresh run sees the first run's files, as without the lock.
        assertThatThrownBy(() -> FanoutJobITCase.runJob(args(out))).hasMessageContaining("the directory is not empty");
    }

    @Test
    void aRunRefusedAfterTakingTheLockLeavesNoLockAndNoDirectoryItMade() {
        Path out = tmp.resolve("new").resolve("out");
        assertThatThrownBy(() -> FanoutJobITCase.runJob(args(out, "--seeds", "5,99999")))
                .isInstanceOf(ConfigException.class).hasMessageContaining("99999");
        assertThat(tmp.resolve("new")).doesNotExist();
    }

    /** A lock naming this host and a process that has ended: an in-process run that crashed. */
    private Path staleLocalLock(Path out, String host) throws Exception {
        Process ended = new ProcessBuilder("true").start();
        assertThat(ended.waitFor(30, TimeUnit.SECONDS)).isTrue();
        Files.createDirectories(out);
        return Files.writeString(out.resolve(OutputLock.NAME), "run=crashed-run\nhost=" + host + "\npid="
                + ended.pid() + "\npid-start-ms=1\nstarted=2024-01-01T00:00:00Z\nexecution=in-process\n"
                + "job=fanout KHOP " + cora + "\n");
    }

    @Test
    void aStaleLockOfAnEndedProcessOnThisHostIsTakenOver() throws Exception {
        Path out = tmp.resolve("out");
        staleLocalLock(out, java.net.InetAddress.getLocalHost().getHostName());
        FanoutJobITCase.runJob(args(out));
        assertThat(FanoutJobITCase.readMessages(out)).hasSize(BATCHES);
        assertThat(out.resolve(OutputLock.NAME)).doesNotExist();
    }

    @Test
    void aLockThisClientCannotCheckIsRefusedUntilOverwriteTakesItOver() throws Exception {
        Path out = tmp.resolve("out");
        Path lock = staleLocalLock(out, "another-host.example");
        assertThatThrownBy(() -> FanoutJobITCase.runJob(args(out)))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("(" + lock + ": fanout KHOP " + cora + ", started 2024-01-01T00:00:00Z by process")
                .hasMessageContaining("on host another-host.example, in-process, run crashed-run) and this client"
                        + " cannot tell whether it still runs (its process is on host another-host.example)")
                .hasMessageContaining("if it has ended, delete " + lock + " or give fanout.output-mode (--output-mode)"
                        + " overwrite");
        assertThat(lock).exists();
        FanoutJobITCase.runJob(args(out, "--output-mode", "overwrite"));
        assertThat(FanoutJobITCase.readMessages(out)).hasSize(BATCHES);
        assertThat(lock).doesNotExist();
    }

    /**
     * A lock naming a cluster job (as a detached submission leaves it) holds while Flink's REST API reports the job
     * running, and is stale once it is cancelled; the same job's main run again (an application-mode failover, fixed
     * job id) takes it over.
     */
    @Test
    void aClusterJobsLockHoldsWhileTheClusterRunsTheJob() throws Exception {
        Configuration client = new Configuration(MINI_CLUSTER.getClientConfiguration());
        client.set(DeploymentOptions.TARGET, "remote");
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        env.fromSequence(0, Long.MAX_VALUE).sinkTo(new DiscardingSink<>());
        JobClient job = env.executeAsync("runs until cancelled");
        awaitStatus(job, JobStatus.RUNNING);

        Path out = tmp.resolve("out");
        Files.createDirectories(out);
        Path lock = Files.writeString(out.resolve(OutputLock.NAME), "run=detached-run\nhost=another-host.example\n"
                + "pid=1\nexecution=cluster remote\njob=fanout KHOP " + cora + "\nflink-job-id=" + job.getJobID()
                + "\n");
        FanoutJobConfig config = JobConfigs.parse(args(out));
        assertThatThrownBy(() -> OutputLock.acquire(out, config, client))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("Flink job " + job.getJobID() + ", run detached-run) and it is running");
        // Even overwrite does not take a running job's lock.
        assertThatThrownBy(() -> OutputLock.acquire(out, JobConfigs.parse(args(out, "--output-mode", "overwrite")),
                client)).hasMessageContaining("and it is running");

        Configuration sameJob = new Configuration(client);
        sameJob.set(PipelineOptionsInternal.PIPELINE_FIXED_JOB_ID, job.getJobID().toHexString());
        try (OutputLock again = OutputLock.acquire(out, config, sameJob)) {
            assertThat(OutputLock.read(lock)).containsEntry("flink-job-id", job.getJobID().toString())
                    .doesNotContainEntry("run", "detached-run");
        }
        Files.writeString(lock, "run=detached-run\nexecution=cluster remote\nflink-job-id=" + job.getJobID() + "\n");

        job.cancel().get(60, TimeUnit.SECONDS);
        awaitStatus(job, JobStatus.CANCELED);
        assertThat(OutputLock.jobStatus(job.getJobID().toString(), client)).isEqualTo("its Flink job "
                + job.getJobID() + " is CANCELED");
        assertThat(OutputLock.jobStatus(new JobID().toString(), client)).contains("does not know its Flink job");
        try (OutputLock taken = OutputLock.acquire(out, config, client)) {
            assertThat(OutputLock.read(lock)).doesNotContainEntry("run", "detached-run")
                    .containsEntry("execution", "cluster remote");
        }
        assertThat(lock).doesNotExist();
    }

    /**
     * A detached job's client is gone when the job ends: the job's file sink releases the lock itself once it has
     * committed its last files, so no stale lock stays in a finished output; a cancelled job keeps it (a later client
     * finds the job ended).
     */
    @Test
    void aFinishedJobReleasesItsLockWithoutItsClient() throws Exception {
        Path out = tmp.resolve("out");
        FanoutJobConfig config = JobConfigs.parse(args(out));
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(
                FlinkSettings.flinkConfiguration(config));
        OutputDirectory output = OutputDirectory.check(config, env); // never closed: the client is gone
        FanoutJob.build(env, config, SeedPlanning.batchPlan(config, GraphStore.scanNodeIds(config.graphSpec())));
        JobClient job = env.executeAsync("detached");
        assertThat(out.resolve(OutputLock.NAME)).as("taken before the job ran").exists();
        job.getJobExecutionResult().get(120, TimeUnit.SECONDS);
        assertThat(out.resolve(OutputLock.NAME)).as("released by the job before it finished").doesNotExist();
        assertThat(FanoutJobITCase.readMessages(out)).hasSize(BATCHES);
        assertThat(output).isNotNull();
    }

    private static void awaitGone(Path file) throws Exception {
        Waits.until(file + " is gone", Duration.ofSeconds(30), () -> !Files.exists(file));
    }

    private static void awaitStatus(JobClient job, JobStatus wanted) throws Exception {
        Waits.until("job " + job.getJobID() + " is " + wanted, Duration.ofSeconds(60),
                () -> job.getJobStatus().get(10, TimeUnit.SECONDS) == wanted);
    }

    /**
     * A job that fails once after a checkpoint and restarts (failover inside Flink, main is not run again) under the
     * lock: it completes every batch, the lock stays this run's until the client is done, then it is gone.
     */
    @Test
    void aJobThatFailsOverKeepsItsLockAndWritesEveryBatch() throws Exception {
        Path out = tmp.resolve("out");
        // 60 batches, throttled to 20 ms each at the source: checkpoints (every 100 ms) complete while they flow.
        FanoutJobConfig config = JobConfigs.parse(args(out, "--epochs", "10", "--checkpoint-interval", "100ms"));
        BatchPlan plan = SeedPlanning.batchPlan(config, GraphStore.scanNodeIds(config.graphSpec()));
        Configuration conf = FlinkSettings.flinkConfiguration(config);
        conf.addAll(FailOnceAfterCheckpoint.restartOnce());
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        FailOnceAfterCheckpoint.reset();
        try (OutputDirectory output = OutputDirectory.check(config, env)) {
            String run = OutputLock.read(out.resolve(OutputLock.NAME)).get("run");
            env.fromSource(new SeedBatchSource(plan), EpochWatermarks.strategy(), "seeds")
                    .map(new ChannelJobITCase.Throttle()).returns(SeedBatchSource.TYPE)
                    .keyBy(new FanoutJob.BatchKey(), Types.LONG)
                    .process(FanoutJob.samplingFunction(config))
                    .returns(TypeInformation.of(EncodedMessage.class))
                    .map(FailOnceAfterCheckpoint.<EncodedMessage>afterRecords(BATCHES))
                    .returns(TypeInformation.of(EncodedMessage.class))
                    .sinkTo(SamplesFileSink.create(out.toString()));
            env.execute("lock-failover-it");
            assertThat(FailOnceAfterCheckpoint.FAILED).as("the failure was injected").isTrue();
            assertThat(OutputLock.read(out.resolve(OutputLock.NAME))).containsEntry("run", run)
                    .containsKey("flink-job-id");
        }
        assertThat(out.resolve(OutputLock.NAME)).doesNotExist();
        java.util.Set<Long> keys = new java.util.TreeSet<>();
        for (byte[] blob : io.fanout.connectors.file.SamplesFile.readAll(out)) {
            var m = io.fanout.connectors.message.SafetensorsCodec.decode(blob);
            keys.add((m.get(io.fanout.connectors.message.MessageKeys.META_EPOCH).asLongArray()[0] << 32)
                    | m.get(io.fanout.connectors.message.MessageKeys.META_BATCH_ID).asLongArray()[0]);
        }
        assertThat(keys).as("every (epoch, batch) of the 10 epochs").hasSize(10 * BATCHES);
    }
}
