package io.fanout.job;

import static org.assertj.core.api.Assertions.assertThat;

import io.fanout.config.FanoutJobConfig;
import io.fanout.graph.NodeIdMap;
import io.fanout.store.GraphStore;
import io.fanout.testing.SharedData;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The run fingerprint (the uid suffix of a partitioned job's sampling operators) changes with every option that
 * changes the messages, the PPR options included, so a mid-epoch savepoint never resumes a batch under other
 * options; the graph-holding operators' uids do not carry it (a loaded graph starts any job).
 */
class RunFingerprintTest {
    private static String fingerprint(String... extra) throws Exception {
        return fingerprintOn("cora", extra);
    }

    private static String fingerprintOn(String graph, String... extra) throws Exception {
        List<String> args = new ArrayList<>(List.of("--graph", SharedData.graph(graph).toString(), "--store",
                "partitioned", "--batch-size", "64"));
        args.addAll(List.of(extra));
        FanoutJobConfig config = FanoutJobConfig.from(FanoutJob.commandLine().parse(args.toArray(String[]::new))
                .configuration);
        NodeIdMap nodes = GraphStore.scanNodeIds(config.graphSpec());
        return FanoutJob.runFingerprint(config, SeedPlanning.batchPlan(config, nodes));
    }

    @Test
    void everyOptionThatChangesTheMessagesChangesTheFingerprint() throws Exception {
        String ppr = fingerprint("--sampler", "ppr");
        assertThat(fingerprint("--sampler", "ppr")).as("deterministic").isEqualTo(ppr);
        String[][] variants = {
            {"--sampler", "khop"}, {"--sampler", "ppr", "--alpha", "0.3"}, {"--sampler", "ppr", "--eps", "1e-5"},
            {"--sampler", "ppr", "--max-ppr-nodes", "20"}, {"--sampler", "ppr", "--ppr-max-fetch-iterations", "3"},
            {"--sampler", "ppr", "--residual-topup", "false"}, {"--sampler", "ppr", "--seed", "9"},
            {"--sampler", "ppr", "--batch-size", "32"},
        };
        Set<String> seen = new HashSet<>(Set.of(ppr));
        for (String[] v : variants) {
            assertThat(seen.add(fingerprint(v))).as(String.join(" ", v)).isTrue();
        }
        assertThat(fingerprint("--fanout", "5,5")).isNotEqualTo(fingerprint("--fanout", "5,4"));
    }

    @Test
    void treesSubgraphTypesAndSeedTimesChangeTheFingerprintAndAPlainRunKeepsItsOwn() throws Exception {
        String plain = fingerprint("--fanout", "5,5");
        Set<String> seen = new HashSet<>(Set.of(plain));
        for (String[] v : new String[][] {{"--disjoint"}, {"--subgraph-type", "bidirectional"},
            {"--subgraph-type", "induced"}}) {
            assertThat(seen.add(fingerprint(with(v, "--fanout", "5,5")))).as(String.join(" ", v)).isTrue();
        }
        String temporal = fingerprintOn("college_msg", "--time-column", "timestamp", "--seed-time", "1");
        assertThat(fingerprintOn("college_msg", "--time-column", "timestamp", "--seed-time", "1")).isEqualTo(temporal);
        assertThat(Set.of(temporal,
                fingerprintOn("college_msg", "--time-column", "timestamp", "--seed-time", "2"),
                fingerprintOn("college_msg", "--time-column", "timestamp", "--seed-time", "1", "--temporal-strategy",
                        "last"),
                fingerprintOn("college_msg", "--disjoint"))).as("each a run of its own").hasSize(4);
    }

    @Test
    void negativesChangeALinkRunsFingerprint(@org.junit.jupiter.api.io.TempDir java.nio.file.Path tmp) throws Exception {
        String links = java.nio.file.Files.writeString(tmp.resolve("links.tsv"), "0\t1\n2\t3\n").toString();
        String none = fingerprint("--link-seeds", links);
        assertThat(fingerprint("--link-seeds", links)).isEqualTo(none);
        assertThat(Set.of(none, fingerprint("--link-seeds", links, "--neg-sampling", "binary"),
                fingerprint("--link-seeds", links, "--neg-sampling", "binary", "--neg-amount", "2")))
                .as("each a run of its own").hasSize(3);
    }

    @Test
    void ablpLabelFilesChangeTheFingerprint(@org.junit.jupiter.api.io.TempDir java.nio.file.Path tmp) throws Exception {
        String positive = java.nio.file.Files.writeString(tmp.resolve("pos.tsv"), "0\t1\n2\t3\n").toString();
        String negative = java.nio.file.Files.writeString(tmp.resolve("neg.tsv"), "0\t5\n").toString();
        String other = java.nio.file.Files.writeString(tmp.resolve("other.tsv"), "0\t1\n2\t4\n").toString();
        String withPositive = fingerprint("--ablp-positive-edges", positive, "--seeds", "0,2");
        assertThat(fingerprint("--ablp-positive-edges", positive, "--seeds", "0,2")).isEqualTo(withPositive);
        assertThat(Set.of(withPositive, fingerprint("--seeds", "0,2"),
                fingerprint("--ablp-positive-edges", other, "--seeds", "0,2"),
                fingerprint("--ablp-positive-edges", positive, "--ablp-negative-edges", negative, "--seeds", "0,2")))
                .as("each a run of its own").hasSize(4);
    }

    @Test
    void typedLabelEdgeFilesChangeTheFingerprint(@org.junit.jupiter.api.io.TempDir java.nio.file.Path tmp)
            throws Exception {
        // A typed graph's label edge types are not in the partitioned store's saved graph: their files are stamped.
        java.nio.file.Files.writeString(tmp.resolve("edges.user__knows__user.tsv"),
                "# directed=true\n0\t1\n1\t2\n2\t3\n3\t0\n");
        java.nio.file.Path labels = java.nio.file.Files.writeString(tmp.resolve("edges.user__likes__user.tsv"),
                "# directed=true\n0\t2\n1\t3\n");
        String[] ablp = {"--ablp-positive-type", "user__likes__user", "--fanout", "2"};
        String first = typedFingerprint(tmp, ablp);
        assertThat(typedFingerprint(tmp, ablp)).isEqualTo(first);
        java.nio.file.Files.writeString(labels, "# directed=true\n0\t2\n1\t3\n2\t0\n");
        java.nio.file.Files.setLastModifiedTime(labels, java.nio.file.attribute.FileTime.fromMillis(1_000_000L));
        assertThat(typedFingerprint(tmp, ablp)).as("another label file, another run").isNotEqualTo(first);
    }

    private static String typedFingerprint(java.nio.file.Path graph, String... extra) throws Exception {
        List<String> args = new ArrayList<>(List.of("--graph", graph.toString(), "--store", "partitioned",
                "--batch-size", "2"));
        args.addAll(List.of(extra));
        FanoutJobConfig config = FanoutJobConfig.from(FanoutJob.commandLine().parse(args.toArray(String[]::new))
                .configuration);
        java.util.Map<String, NodeIdMap> ids = io.fanout.store.TypedGraphStore.scanNodeIds(config.graphSpec(),
                SeedPlanning.typedSeedTypes(config));
        SeedPlanning.AnchorLabelEdges labels = SeedPlanning.typedLabelEdges(config, ids);
        return FanoutJob.runFingerprint(config, SeedPlanning.anchorPlan(config, ids.get("user"), labels.positive()));
    }

    private static String[] with(String[] options, String... more) {
        List<String> all = new ArrayList<>(List.of(options));
        all.addAll(List.of(more));
        return all.toArray(String[]::new);
    }
}
