package io.fanout.job;

import static io.fanout.job.FanoutJobITCase.readMessages;
import static io.fanout.job.GraphUpdatesITCase.at;
import static io.fanout.job.GraphUpdatesITCase.coraLists;
import static io.fanout.job.GraphUpdatesITCase.runAsync;
import static org.assertj.core.api.Assertions.assertThat;

import io.fanout.connectors.message.MessageKeys;
import io.fanout.connectors.message.SafetensorsCodec;
import io.fanout.connectors.message.TensorMessage;
import io.fanout.sampling.ppr.FetchedList;
import io.fanout.sampling.ppr.PprBatchPush;
import io.fanout.testing.MiniClusters;
import io.fanout.testing.SharedData;
import java.io.Writer;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Partitioned PPR over a graph that changes while it samples: every message is exactly the push of its seeds over
 * the graph at its {@code #META.graph_version} (lists read at that version, capped by the positions their degree
 * then gives, each listed neighbour's degree at that version), with the job's fetch rounds; so updates are seen by
 * later batches and never by earlier ones.
 */
class PartitionedPprUpdatesITCase {
    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = MiniClusters.oneTaskManagerTwoSlots();

    private static final double ALPHA = 0.5;
    private static final double EPS = 1e-4;
    private static final int MAX_PPR_NODES = 20;
    /** Cora's median degree is 3: most lists are capped, so a degree change moves the positions read. */
    private static final int MAX_NEIGHBORS = 3;
    private static final int ROUNDS = 4;
    private static final long SEED = 7;

    @TempDir
    Path tmp;

    @Test
    void everyMessageIsThePushOverTheGraphAtItsVersion() throws Exception {
        Path out = tmp.resolve("out");
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            server.setSoTimeout(60_000);
            CompletableFuture<JobSummary> job = runAsync("--graph", SharedData.graph("cora").toString(),
                    "--store", "partitioned", "--sampler", "ppr", "--alpha", String.valueOf(ALPHA), "--eps",
                    String.valueOf(EPS), "--max-ppr-nodes", String.valueOf(MAX_PPR_NODES), "--ppr-max-neighbors",
                    String.valueOf(MAX_NEIGHBORS), "--ppr-max-fetch-iterations", String.valueOf(ROUNDS),
                    "--seed", String.valueOf(SEED), "--batch-size", "100", "--epochs", "2", "--shuffle",
                    "--max-batches-per-second", "5", "--parallelism", "2", "--checkpoint-interval", "1s",
                    "--graph-updates-socket", "127.0.0.1:" + server.getLocalPort(), "--output", out.toString(),
                    "-Drestart-strategy.type=none");
            try (Socket socket = server.accept();
                    Writer w = new java.io.OutputStreamWriter(socket.getOutputStream(), StandardCharsets.UTF_8)) {
                GraphUpdatesITCase.sendUpdates(w);
            }
            JobSummary summary = job.get(180, TimeUnit.SECONDS);
            assertThat(summary.graphUpdates).isEqualTo(GraphUpdatesITCase.UPDATES.length);
            assertThat(summary.graphUpdatesMissingDeletes).as("2 - 7 9999, counted once").isEqualTo(1);
        }
        List<byte[]> messages = new ArrayList<>(readMessages(out).values());
        assertThat(messages).hasSize(2 * 28);

        Map<Long, List<Long>> base = coraLists();
        Map<Long, Map<Long, List<Long>>> byVersion = new HashMap<>();
        TreeSet<Long> versions = new TreeSet<>();
        int changedByUpdates = 0;
        for (byte[] blob : messages) {
            TensorMessage m = SafetensorsCodec.decode(blob);
            long version = m.get(MessageKeys.META_GRAPH_VERSION).asLongArray()[0];
            versions.add(version);
            long[] seeds = m.get(MessageKeys.BATCH).asLongArray();
            PprBatchPush.Result expected = push(seeds, byVersion.computeIfAbsent(version, v -> at(base, v)));
            String what = "batch " + m.get(MessageKeys.META_BATCH_ID).asLongArray()[0] + " of epoch "
                    + m.get(MessageKeys.META_EPOCH).asLongArray()[0] + " at version " + version;
            assertThat(m.get(MessageKeys.IDS).asLongArray()).as("ids, " + what).containsExactly(expected.ids);
            assertThat(m.get(MessageKeys.META_EDGE_INDEX).asLongArray()).as("edge index, " + what)
                    .containsExactly(java.util.Arrays.stream(expected.edgeIndex).asLongStream().toArray());
            assertThat(m.get(MessageKeys.META_EDGE_ATTR).asDoubleArray()).as("scores, " + what)
                    .containsExactly(expected.edgeAttr);
            if (version > 0) {
                PprBatchPush.Result loaded = push(seeds, byVersion.computeIfAbsent(0L, v -> at(base, v)));
                if (!java.util.Arrays.equals(loaded.ids, expected.ids)
                        || !java.util.Arrays.equals(loaded.edgeAttr, expected.edgeAttr)) {
                    changedByUpdates++;
                }
            }
        }
        assertThat(versions).as("batches before and after the updates").contains(0L, 3L);
        assertThat(changedByUpdates).as("messages the updates changed").isPositive();
    }

    /** The job's push of {@code seeds} over {@code lists}, fetching round by round as the job does. */
    private static PprBatchPush.Result push(long[] seeds, Map<Long, List<Long>> lists) {
        PprBatchPush push = new PprBatchPush(seeds, ALPHA, EPS, MAX_PPR_NODES, true);
        long[] missing = push.advance(true);
        for (int round = 1; round <= ROUNDS && missing.length > 0; round++) {
            for (long u : missing) {
                List<Long> list = lists.getOrDefault(u, List.of());
                long[] neighbors = list.stream().mapToLong(Long::longValue).toArray();
                int[] degrees = list.stream().mapToInt(w -> lists.getOrDefault(w, List.of()).size()).toArray();
                push.addList(u, FetchedList.of(u, neighbors, degrees, MAX_NEIGHBORS, SEED));
            }
            missing = push.advance(round < ROUNDS);
        }
        return push.select(MAX_PPR_NODES, true);
    }
}
