package io.fanout.job;

import static io.fanout.job.FanoutJobITCase.readMessages;
import static io.fanout.job.FanoutJobITCase.runJob;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.config.ConfigException;
import io.fanout.config.FanoutJobConfig;
import io.fanout.connectors.message.EncodedMessage;
import io.fanout.connectors.message.MessageKeys;
import io.fanout.connectors.message.SafetensorsCodec;
import io.fanout.connectors.message.TensorMessage;
import io.fanout.flink.partitioned.PartitionedKHop;
import io.fanout.flink.partitioned.StageOptions;
import io.fanout.flink.source.EpochWatermarks;
import io.fanout.flink.source.SeedBatchSource;
import io.fanout.flink.updates.GraphUpdateSources;
import io.fanout.graph.NodeIdMap;
import io.fanout.store.GraphStore;
import io.fanout.testing.JobConfigs;
import io.fanout.testing.MiniClusters;
import io.fanout.testing.SharedData;
import java.io.BufferedReader;
import java.io.Writer;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Graph updates in {@code --store partitioned}: every message's seeds have exactly the neighbour lists of the graph
 * at the message's {@code #META.graph_version}, at every hop (fanout -1 takes every neighbour, so this is exact): the loaded
 * list, then the additions, with the deletions up to that version, so updates are visible in later batches and
 * never in earlier ones, whatever the arrival interleaving; from a socket and from a watched directory.
 */
class GraphUpdatesITCase {
    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = MiniClusters.oneTaskManagerTwoSlots();

    @TempDir
    Path tmp;

    /** {version, 1 = add / 0 = delete, src, dst} of the update lines the tests send. */
    static final long[][] UPDATES = {
        {1, 1, 0, 5000}, {1, 1, 1, 2}, {1, 0, 0, 633},
        {2, 0, 1, 2}, {2, 0, 7, 9999}, {2, 1, 3, 4},
        {3, 0, 0, 5000}, {3, 1, 10, 11},
    };

    @Test
    void socketUpdatesAreSeenExactlyByLaterBatchesAndNeverByEarlierOnes() throws Exception {
        Path out = tmp.resolve("out");
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            server.setSoTimeout(60_000);
            CompletableFuture<JobSummary> job = runAsync("--graph", SharedData.graph("cora").toString(),
                    "--store", "partitioned", "--fanout", "-1,-1", "--batch-size", "100", "--epochs", "2", "--shuffle",
                    "--max-batches-per-second", "5", "--parallelism", "2", "--checkpoint-interval", "1s",
                    "--graph-updates-socket", "127.0.0.1:" + server.getLocalPort(), "--output", out.toString(),
                    "-Drestart-strategy.type=none");
            try (Socket socket = server.accept();
                    Writer w = new java.io.OutputStreamWriter(socket.getOutputStream(), StandardCharsets.UTF_8)) {
                sendUpdates(w);
            } // closing the connection ends the updates: version 3 is committed
            JobSummary summary = job.get(120, TimeUnit.SECONDS);
            assertThat(summary.graphUpdates).isEqualTo(UPDATES.length);
            assertThat(summary.graphUpdatesMissingDeletes).as("2 - 7 9999 deletes an edge cora does not have").isEqualTo(1);
            assertThat(summary.loadCompactionMs).as("the lookups compacted their loaded edges").isPositive();
        }
        List<byte[]> messages = new ArrayList<>(readMessages(out).values());
        assertThat(messages).hasSize(2 * 28);
        TreeSet<Long> versions = assertExactAtTheirVersions(messages);
        assertThat(versions).as("batches before and after the updates").contains(0L, 3L);
    }

    @Test
    void aBadUpdateLineFailsTheJobNamingSourceAndLine() throws Exception {
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            server.setSoTimeout(60_000);
            String where = "127.0.0.1:" + server.getLocalPort();
            CompletableFuture<JobSummary> job = runAsync("--graph", SharedData.graph("cora").toString(),
                    "--store", "partitioned", "--fanout", "5", "--batch-size", "500", "--graph-updates-socket", where,
                    "-Drestart-strategy.type=none");
            try (Socket socket = server.accept();
                    Writer w = new java.io.OutputStreamWriter(socket.getOutputStream(), StandardCharsets.UTF_8)) {
                send(w, "1 + 0 5000", "1 + x 3");
                assertThatThrownBy(() -> job.get(60, TimeUnit.SECONDS))
                        .hasStackTraceContaining("socket " + where + " line 2: non-numeric src id 'x'");
            }
        }
    }

    @Test
    void graphUpdateOptionsAreRefusedWithTheMemoryStoreAndValidated() {
        String cora = SharedData.graph("cora").toString();
        assertThatThrownBy(() -> runJob("--graph", cora, "--graph-updates-socket", "localhost:9"))
                .isInstanceOf(ConfigException.class)
                .hasMessageStartingWith("Option fanout.graph-updates-socket (--graph-updates-socket) needs fanout.store"
                        + " (--store) partitioned");
        assertThatThrownBy(() -> runJob("--graph", cora, "--store", "partitioned", "--graph-updates-socket", "localhost"))
                .isInstanceOf(ConfigException.class)
                .hasMessage("Invalid value 'localhost' for option fanout.graph-updates-socket (--graph-updates-socket):"
                        + " expected host:port with a port in 1..65535");
        assertThatThrownBy(() -> runJob("--graph", cora, "--store", "partitioned", "--graph-updates",
                tmp.resolve("missing").toString()))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("for option fanout.graph-updates (--graph-updates): not a directory");
    }

    /**
     * A watched directory: one file before the job starts, one written (under a dot-name, then renamed) while it
     * samples; the update source then stays open and idle, and the epochs still end (the watermark each epoch's
     * messages must precede: the channel's END_OF_EPOCH).
     */
    @Test
    void directoryUpdatesWhileSamplingAndEpochsStillEndWithTheUpdateSourceIdle() throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("updates"));
        Files.writeString(dir.resolve("0001.tsv"), "# graph updates of cora\n1 + 0 5000\n1 + 1 2\n1 - 0 633\n"
                + "2 - 1 2\n2 - 7 9999\n2 + 3 4\n");
        FanoutJobConfig config = JobConfigs.parse("--graph", SharedData.graph("cora").toString(), "--store", "partitioned",
                "--fanout", "-1", "--batch-size", "100", "--epochs", "2", "--shuffle", "--parallelism", "2",
                "--graph-updates", dir.toString(), "--graph-updates-interval", "200ms", "--checkpoint-interval", "1s");
        org.apache.flink.configuration.Configuration conf = FlinkSettings.flinkConfiguration(config);
        conf.set(org.apache.flink.configuration.RestartStrategyOptions.RESTART_STRATEGY, "none"); // a failure fails the test, not a restart loop
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(2);
        NodeIdMap nodes = GraphStore.scanNodeIds(config.graphSpec());
        DataStream<io.fanout.batch.SeedBatch> batches = env
                .fromSource(new SeedBatchSource(SeedPlanning.batchPlan(config, nodes), 3), EpochWatermarks.strategy(),
                        "seed-batches");
        DataStream<EncodedMessage> messages = PartitionedKHop.build(env, batches, config.graphSpec(),
                StageOptions.builder().fanouts(config.fanouts).seed(config.seed).seedIds(nodes.idsOrNull())
                        .bucketSize(config.partitionedBucketSize).cacheBytes(config.partitionedCacheBytes)
                        .compactAfterLoad(config.partitionedCompactAfterLoad)
                        .graphUpdates(GraphUpdateSources.directory(env, dir, config.graphUpdatesInterval)).build());
        List<byte[]> payloads = new ArrayList<>();
        List<long[]> watermarkAfter = new ArrayList<>(); // {messages seen, watermark}
        try (CloseableIterator<Event> events = messages
                .transform("events", org.apache.flink.api.common.typeinfo.TypeInformation.of(Event.class), new Events())
                .setParallelism(1).executeAndCollect()) {
            // Batches start over ~19 s (56 at 3/s) once the job runs; the second file lands in the middle, while the
            // first batches (fixed at version 2 or below) are still being sampled.
            java.util.concurrent.ScheduledExecutorService writer = java.util.concurrent.Executors.newSingleThreadScheduledExecutor();
            java.util.concurrent.ScheduledFuture<?> written = writer.schedule(() -> {
                Path part = dir.resolve(".0002.tsv");
                Files.writeString(part, "3 - 0 5000\n3 + 10 11\n");
                Files.move(part, dir.resolve("0002.tsv"), StandardCopyOption.ATOMIC_MOVE);
                return null;
            }, 7, TimeUnit.SECONDS);
            writer.shutdown();
            while (events.hasNext()) {
                Event e = events.next();
                if (e.payload != null) {
                    payloads.add(e.payload);
                } else {
                    watermarkAfter.add(new long[] {payloads.size(), e.watermark});
                    if (e.watermark == Long.MAX_VALUE) {
                        break; // every epoch ended, the update source still open
                    }
                }
            }
            written.get();
        }
        assertThat(payloads).hasSize(2 * 28);
        // Epoch 0's end (the first watermark >= 0) came after all 28 of its messages, none after it.
        long[] epoch0 = watermarkAfter.stream().filter(w -> w[1] >= 0).findFirst().orElseThrow();
        List<Long> epochs = new ArrayList<>();
        for (byte[] p : payloads) {
            epochs.add(SafetensorsCodec.decode(p).get(MessageKeys.META_EPOCH).asLongArray()[0]);
        }
        assertThat(epochs.subList(0, (int) epoch0[0])).filteredOn(e -> e == 0L).hasSize(28);
        assertThat(epochs.subList((int) epoch0[0], epochs.size())).doesNotContain(0L);
        TreeSet<Long> versions = assertExactAtTheirVersions(payloads);
        assertThat(versions.last()).as("the file written while sampling").isEqualTo(3L);
        assertThat(versions.first()).as("batches started before it").isLessThan(3L);
    }

    /** A message or a watermark, in the order one operator saw them. */
    public static class Event {
        public byte[] payload;
        public long watermark;

        public Event() {}
    }

    /** Passes messages and watermarks on as records, so the test sees their order. */
    static final class Events extends AbstractStreamOperator<Event> implements OneInputStreamOperator<EncodedMessage, Event> {
        private static final long serialVersionUID = 1L;

        @Override
        public void processElement(StreamRecord<EncodedMessage> element) {
            Event e = new Event();
            e.payload = element.getValue().payload;
            output.collect(new StreamRecord<>(e));
        }

        @Override
        public void processWatermark(Watermark mark) throws Exception {
            Event e = new Event();
            e.watermark = mark.getTimestamp();
            output.collect(new StreamRecord<>(e));
            super.processWatermark(mark);
        }
    }

    /**
     * Asserts that each message's seeds have exactly their neighbour lists at the message's graph version, in list
     * order; returns the versions seen.
     */
    private static TreeSet<Long> assertExactAtTheirVersions(List<byte[]> messages) throws Exception {
        Map<Long, List<Long>> base = coraLists();
        Map<Long, Map<Long, List<Long>>> byVersion = new HashMap<>();
        TreeSet<Long> versions = new TreeSet<>();
        int changedSeedsChecked = 0;
        for (byte[] blob : messages) {
            TensorMessage m = SafetensorsCodec.decode(blob);
            long version = m.get(MessageKeys.META_GRAPH_VERSION).asLongArray()[0];
            versions.add(version);
            Map<Long, List<Long>> lists = byVersion.computeIfAbsent(version, v -> at(base, v));
            long[] seeds = m.get(MessageKeys.BATCH).asLongArray();
            long[] ids = m.get(MessageKeys.IDS).asLongArray();
            long[] rows = m.get(MessageKeys.ROWS).asLongArray();
            long[] cols = m.get(MessageKeys.COLS).asLongArray();
            long[] perHop = m.get(MessageKeys.NUM_SAMPLED_NODES).asLongArray();
            long expanded = 0; // the nodes every hop but the last expanded: the seeds, then each hop's new nodes
            for (int h = 0; h < perHop.length - 1; h++) {
                expanded += perHop[h];
            }
            assertThat(expanded).isGreaterThanOrEqualTo(seeds.length);
            for (int s = 0; s < expanded; s++) {
                List<Long> sampled = new ArrayList<>();
                for (int k = 0; k < rows.length; k++) {
                    if (rows[k] == s) {
                        sampled.add(ids[(int) cols[k]]);
                    }
                }
                List<Long> expected = lists.getOrDefault(ids[s], List.of());
                assertThat(sampled).as("neighbours of node %d at version %d", ids[s], version).isEqualTo(expected);
                if (!expected.equals(base.getOrDefault(ids[s], List.of()))) {
                    changedSeedsChecked++;
                }
            }
        }
        assertThat(changedSeedsChecked).as("seeds whose lists the updates changed").isPositive();
        return versions;
    }

    /** cora's lists in the memory store's order: rows in file order, an undirected row in both lists. */
    static Map<Long, List<Long>> coraLists() throws Exception {
        Map<Long, List<Long>> lists = new HashMap<>();
        try (BufferedReader in = Files.newBufferedReader(SharedData.graph("cora").resolve("edges.tsv"))) {
            for (String line; (line = in.readLine()) != null; ) {
                if (line.startsWith("#")) {
                    continue;
                }
                String[] f = line.split("\t");
                long a = Long.parseLong(f[0]);
                long b = Long.parseLong(f[1]);
                lists.computeIfAbsent(a, k -> new ArrayList<>()).add(b);
                if (a != b) {
                    lists.computeIfAbsent(b, k -> new ArrayList<>()).add(a);
                }
            }
        }
        return lists;
    }

    /** The lists after {@link #UPDATES} up to {@code version}: additions appended, a deletion removes the first copy. */
    static Map<Long, List<Long>> at(Map<Long, List<Long>> base, long version) {
        Map<Long, List<Long>> lists = new HashMap<>();
        base.forEach((k, v) -> lists.put(k, new ArrayList<>(v)));
        for (long[] u : UPDATES) {
            if (u[0] > version) {
                continue;
            }
            long[][] stored = u[2] == u[3] ? new long[][] {{u[2], u[3]}} : new long[][] {{u[2], u[3]}, {u[3], u[2]}};
            for (long[] e : stored) {
                List<Long> list = lists.computeIfAbsent(e[0], k -> new ArrayList<>());
                if (u[1] == 1) {
                    list.add(e[1]);
                } else {
                    list.remove(Long.valueOf(e[1]));
                }
            }
        }
        return lists;
    }

    static CompletableFuture<JobSummary> runAsync(String... args) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return runJob(args);
            } catch (Exception e) {
                throw new java.util.concurrent.CompletionException(e);
            }
        });
    }

    /** Sends {@link #UPDATES} as three versions 1.5 s apart, batches running before and between them. */
    static void sendUpdates(Writer w) throws Exception {
        Thread.sleep(1500); // batches at the loaded graph (version 0)
        send(w, "# graph updates of cora", "1 + 0 5000", "1 + 1 2", "1 - 0 633", "1");
        Thread.sleep(1500);
        send(w, "2 - 1 2", "2 - 7 9999", "2 + 3 4"); // committed by the first line of version 3
        Thread.sleep(1500);
        send(w, "3 - 0 5000", "3 + 10 11");
    }

    static void send(Writer w, String... lines) throws Exception {
        for (String line : lines) {
            w.write(line + "\n");
        }
        w.flush();
    }
}
