package io.fanout.job;

import io.fanout.config.ConfigException;
import io.fanout.config.FanoutJobConfig;
import io.fanout.config.FanoutOptions;
import java.lang.management.ManagementFactory;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.dag.Transformation;
import org.apache.flink.client.deployment.StandaloneClusterId;
import org.apache.flink.client.program.rest.RestClusterClient;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.CoreOptions;
import org.apache.flink.configuration.DeploymentOptions;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.runtime.jobgraph.JobGraph;
import org.apache.flink.runtime.messages.webmonitor.ClusterOverview;
import org.apache.flink.runtime.rest.messages.EmptyMessageParameters;
import org.apache.flink.runtime.rest.messages.EmptyRequestBody;
import org.apache.flink.runtime.rest.messages.taskmanager.TaskManagerInfo;
import org.apache.flink.runtime.rest.messages.taskmanager.TaskManagersHeaders;
import org.apache.flink.streaming.api.environment.LocalStreamEnvironment;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Fits the job's parallelism to where it runs, before it is submitted: a parallelism the cluster cannot start fails
 * here with one error that says what to change, instead of restarting for ever on "Insufficient number of network
 * buffers" (or waiting for slots that never come).
 *
 * <p>The embedded MiniCluster ({@code fanout-local}) is one TaskManager with a slot per subtask and, unless
 * configured, 64 MiB of network memory: enough for parallelism ~43 of the memory store's one keyBy. Its network memory
 * is sized for the job's needs ({@link NetworkBuffers}), up to a quarter of the JVM's direct memory (at most 1 GiB); a
 * parallelism beyond that, or beyond network memory the user set, is refused, except the default (the number of
 * cores), which is lowered to the largest that fits, with a log line. On a standalone cluster ({@code flink run},
 * target {@code remote}) the REST API's slot count and each TaskManager's network memory are checked.
 */
final class ClusterFit {
    private static final Logger LOG = LoggerFactory.getLogger(ClusterFit.class);
    /** What Flink gives the local MiniCluster without settings. */
    static final MemorySize LOCAL_DEFAULT_NETWORK = MemorySize.ofMebiBytes(64);
    /** The most network memory the local MiniCluster is given unasked. */
    static final MemorySize LOCAL_MAX_NETWORK = MemorySize.ofMebiBytes(1024);

    private ClusterFit() {}

    /** Checks (and for a local run sizes or lowers) the job in {@code env}; call right before executing it. */
    static void check(StreamExecutionEnvironment env, FanoutJobConfig config) {
        if (env instanceof LocalStreamEnvironment) {
            local(env, config);
        } else if ("remote".equals(env.getConfiguration().get(DeploymentOptions.TARGET))) {
            remote(env, config);
        }
    }

    /** The job graph of {@code env}'s job with {@code followers} at {@code parallelism} (see {@link #apply}). */
    private static JobGraph graphAt(StreamExecutionEnvironment env, Set<Transformation<?>> followers, int parallelism) {
        apply(env, followers, parallelism);
        return env.getStreamGraph(false).getJobGraph(); // keeps the transformations for execute()
    }

    /**
     * The operators that took the environment's parallelism when they were added: not one given its own (a
     * parallelism-1 reader), which keeps it whatever the job's parallelism.
     */
    private static Set<Transformation<?>> defaultFollowers(StreamExecutionEnvironment env) {
        Set<Transformation<?>> all = Collections.newSetFromMap(new IdentityHashMap<>());
        for (Transformation<?> sink : env.getTransformations()) {
            all.addAll(sink.getTransitivePredecessors());
        }
        all.removeIf(t -> t.isParallelismConfigured() || t.getParallelism() != env.getParallelism());
        return all;
    }

    /** Gives the job {@code parallelism}: the environment's default and each of {@code followers}. */
    private static void apply(StreamExecutionEnvironment env, Set<Transformation<?>> followers, int parallelism) {
        env.setParallelism(parallelism);
        for (Transformation<?> transformation : followers) {
            transformation.setParallelism(parallelism, false);
        }
    }

    private static void local(StreamExecutionEnvironment env, FanoutJobConfig config) {
        ReadableConfig conf = env.getConfiguration();
        long segment = conf.get(TaskManagerOptions.MEMORY_SEGMENT_SIZE).getBytes();
        boolean userNetwork = conf.getOptional(TaskManagerOptions.NETWORK_MEMORY_MIN).isPresent()
                || conf.getOptional(TaskManagerOptions.NETWORK_MEMORY_MAX).isPresent();
        // Local execution uses network min (max when only max is set): TaskExecutorResourceUtils.adjustForLocalExecution.
        long available = userNetwork ? conf.getOptional(TaskManagerOptions.NETWORK_MEMORY_MIN)
                .orElseGet(() -> conf.get(TaskManagerOptions.NETWORK_MEMORY_MAX)).getBytes() : localBudget();
        int taskManagers = conf.get(TaskManagerOptions.MINI_CLUSTER_NUM_TASK_MANAGERS);
        int parallelism = env.getParallelism();
        Set<Transformation<?>> followers = defaultFollowers(env);
        JobGraph graph = graphAt(env, followers, parallelism);
        long need = localNeed(graph, taskManagers, conf) * segment;
        if (need > available) {
            int fits = largestFitting(env, followers, parallelism, available, taskManagers, conf, segment);
            String why = "at parallelism " + parallelism + " the job's " + NetworkBuffers.allToAllExchanges(graph)
                    + " all-to-all exchanges need " + need / segment + " network buffers of " + size(segment) + " ("
                    + size(need) + ") in the local MiniCluster, more than its " + size(available) + " of network"
                    + " memory (" + (userNetwork ? "taskmanager.memory.network.min/max as set"
                    : "a quarter of the JVM's " + size(maxDirectMemory()) + " of direct memory, at most "
                    + size(LOCAL_MAX_NETWORK.getBytes())) + ")";
            String more = "more network memory (-Dtaskmanager.memory.network.min=" + mebibytes(need)
                    + " -Dtaskmanager.memory.network.max=" + mebibytes(need) + ", and a JVM -Xmx or"
                    + " -XX:MaxDirectMemorySize above it: JAVA_OPTS for fanout-local)";
            String lower = fits >= 1 ? FanoutJobConfig.name(FanoutOptions.PARALLELISM) + " " + fits + " or less, or " : "";
            if (config.parallelism != null) {
                throw new ConfigException("Invalid value '" + config.parallelism + "' for option "
                        + FanoutJobConfig.name(FanoutOptions.PARALLELISM) + ": " + why + "; give " + lower + more);
            }
            if (config.configuration.getOptional(CoreOptions.DEFAULT_PARALLELISM).isPresent()) {
                throw new ConfigException("Invalid value '" + parallelism + "' for option "
                        + CoreOptions.DEFAULT_PARALLELISM.key() + ": " + why + "; give " + lower + more);
            }
            if (fits < 1) {
                throw new ConfigException("The job does not fit the local MiniCluster even at parallelism 1: " + why
                        + "; give " + more);
            }
            LOG.warn("Parallelism {} instead of the default {} (the cores): {}; give {} to choose", fits, parallelism,
                    why, FanoutJobConfig.name(FanoutOptions.PARALLELISM));
            parallelism = fits;
            graph = graphAt(env, followers, parallelism);
            need = localNeed(graph, taskManagers, conf) * segment;
        }
        apply(env, followers, parallelism);
        if (!userNetwork && need > LOCAL_DEFAULT_NETWORK.getBytes()) {
            // Twice the minimum, so a producer fills one buffer per channel while the other is in flight.
            long size = Math.min(available, 2 * need);
            Configuration settings = (Configuration) conf; // what the local executor starts the MiniCluster with
            settings.set(TaskManagerOptions.NETWORK_MEMORY_MIN, new MemorySize(size));
            settings.set(TaskManagerOptions.NETWORK_MEMORY_MAX, new MemorySize(size));
            LOG.info("Local MiniCluster: {} of network memory for parallelism {} ({} buffers needed, Flink's local"
                    + " default is {})", size(size), parallelism, need / segment, size(LOCAL_DEFAULT_NETWORK.getBytes()));
        }
        int slots = conf.getOptional(TaskManagerOptions.NUM_TASK_SLOTS).orElse(-1);
        int needed = NetworkBuffers.slots(graph);
        if (slots > 0 && (long) slots * taskManagers < needed) {
            throw new ConfigException("Invalid value '" + slots + "' for option " + TaskManagerOptions.NUM_TASK_SLOTS.key()
                    + ": the job needs " + needed + " task slots at parallelism " + parallelism + " and the local"
                    + " MiniCluster has " + (long) slots * taskManagers + "; give " + FanoutJobConfig.name(
                    FanoutOptions.PARALLELISM) + " " + slots * taskManagers + " or less, or leave the slots unset");
        }
    }

    /** Buffers the local MiniCluster needs: one TaskManager's local channels, or per TaskManager of several. */
    private static long localNeed(JobGraph graph, int taskManagers, ReadableConfig conf) {
        if (taskManagers <= 1) {
            return NetworkBuffers.oneTaskManager(graph);
        }
        int slots = conf.getOptional(TaskManagerOptions.NUM_TASK_SLOTS)
                .orElse((NetworkBuffers.slots(graph) + taskManagers - 1) / taskManagers);
        return NetworkBuffers.perTaskManager(graph, slots);
    }

    /** The largest parallelism below {@code above} whose needs fit {@code available} bytes, or 0 (they grow with it). */
    private static int largestFitting(StreamExecutionEnvironment env, Set<Transformation<?>> followers, int above,
            long available, int taskManagers, ReadableConfig conf, long segment) {
        int low = 0;
        int high = above - 1;
        while (low < high) {
            int mid = (low + high + 1) / 2;
            if (localNeed(graphAt(env, followers, mid), taskManagers, conf) * segment <= available) {
                low = mid;
            } else {
                high = mid - 1;
            }
        }
        return low;
    }

    /** The network memory the local MiniCluster may be given unasked: a quarter of the direct memory, at most 1 GiB. */
    static long localBudget() {
        return Math.max(LOCAL_DEFAULT_NETWORK.getBytes(), Math.min(LOCAL_MAX_NETWORK.getBytes(), maxDirectMemory() / 4));
    }

    /** The JVM's direct memory limit (-XX:MaxDirectMemorySize, by default the heap's maximum). */
    private static long maxDirectMemory() {
        try {
            String value = ManagementFactory.getPlatformMXBean(com.sun.management.HotSpotDiagnosticMXBean.class)
                    .getVMOption("MaxDirectMemorySize").getValue();
            long bytes = Long.parseLong(value);
            if (bytes > 0) {
                return bytes;
            }
        } catch (RuntimeException e) {
            // not HotSpot: assume the default
        }
        return Runtime.getRuntime().maxMemory();
    }

    /**
     * A standalone cluster: fails when it has fewer task slots than the job needs, or when a TaskManager whose slots
     * the job fills has less network memory than its subtasks need. A cluster that cannot be asked is left to Flink.
     */
    private static void remote(StreamExecutionEnvironment env, FanoutJobConfig config) {
        ReadableConfig conf = env.getConfiguration();
        JobGraph graph = env.getStreamGraph(false).getJobGraph();
        int needed = NetworkBuffers.slots(graph);
        Configuration client = Configuration.fromMap(conf.toMap());
        client.set(RestOptions.RETRY_MAX_ATTEMPTS, 0);
        String where = client.get(RestOptions.ADDRESS) + ":" + client.get(RestOptions.PORT);
        String parallelism = FanoutJobConfig.name(FanoutOptions.PARALLELISM) + " " + env.getParallelism();
        try (RestClusterClient<StandaloneClusterId> rest = new RestClusterClient<>(client,
                StandaloneClusterId.getInstance())) {
            ClusterOverview overview = rest.getClusterOverview().get(30, TimeUnit.SECONDS);
            if (overview.getNumSlotsTotal() < needed) {
                throw new ConfigException(parallelism + ": the job needs " + needed + " task slots and the cluster at "
                        + where + " has " + overview.getNumSlotsTotal() + " (" + overview.getNumTaskManagersConnected()
                        + " TaskManagers); give " + FanoutJobConfig.name(FanoutOptions.PARALLELISM) + " "
                        + overview.getNumSlotsTotal() + " or less, or start more TaskManagers (or raise"
                        + " taskmanager.numberOfTaskSlots)");
            }
            if (overview.getNumSlotsAvailable() < needed) {
                LOG.warn("{}: the job needs {} task slots and {} of the cluster's {} are free; it waits for other jobs'",
                        parallelism, needed, overview.getNumSlotsAvailable(), overview.getNumSlotsTotal());
            }
            long segment = conf.get(TaskManagerOptions.MEMORY_SEGMENT_SIZE).getBytes();
            boolean full = needed >= overview.getNumSlotsTotal(); // every slot used: every TaskManager is full
            for (TaskManagerInfo tm : rest.sendRequest(TaskManagersHeaders.getInstance(),
                    EmptyMessageParameters.getInstance(), EmptyRequestBody.getInstance())
                    .get(30, TimeUnit.SECONDS).getTaskManagerInfos()) {
                Long network = tm.getMemoryConfiguration().getNetworkMemory();
                long need = NetworkBuffers.perTaskManager(graph, tm.getNumberSlots()) * segment;
                if (network != null && need > network && full) {
                    throw new ConfigException(parallelism + ": the job's subtasks in TaskManager " + tm.getResourceId()
                            + " (" + tm.getNumberSlots() + " slots) need " + need / segment + " network buffers ("
                            + size(need) + "), more than its " + size(network) + " of network memory; give a lower "
                            + FanoutJobConfig.name(FanoutOptions.PARALLELISM) + ", or more network memory"
                            + " (taskmanager.memory.network.min/max/fraction) or fewer slots per TaskManager");
                } else if (network != null && need > network) {
                    LOG.warn("{}: TaskManager {} ({} slots) has {} of network memory and the job's subtasks there may"
                            + " need {}", parallelism, tm.getResourceId(), tm.getNumberSlots(), size(network),
                            size(need));
                }
            }
        } catch (ConfigException e) {
            throw e;
        } catch (Exception e) {
            LOG.warn("Could not ask the cluster at {} for its task slots and network memory ({}); submitting anyway",
                    where, e.toString());
        }
    }

    /** A size for messages: whole KiB below 1 MiB, else MiB (GiB from 10 GiB) to one decimal. */
    static String size(long bytes) {
        if (bytes < (1 << 20)) {
            return (bytes + 1023) / 1024 + " KiB";
        }
        boolean gib = bytes >= (10L << 30);
        String text = String.format(Locale.ROOT, "%.1f", bytes / (double) (gib ? 1L << 30 : 1L << 20));
        return (text.endsWith(".0") ? text.substring(0, text.length() - 2) : text) + (gib ? " GiB" : " MiB");
    }

    /** A size option's value in whole mebibytes, rounded up. */
    private static String mebibytes(long bytes) {
        return String.format(Locale.ROOT, "%dm", (bytes + (1 << 20) - 1) >> 20);
    }
}
