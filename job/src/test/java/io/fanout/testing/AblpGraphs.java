package io.fanout.testing;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

/**
 * An ABLP graph derived from the real bitcoin_alpha_typed in a temporary directory: every fifth trust edge moves
 * out of {@code user__trusts__user} into the positive label type {@code user__trusts_gigl_positive__user}; each
 * anchor gets two negative label edges to users it has no edge of any type to (seeded, so every run is the same).
 */
public final class AblpGraphs {
    public static final String POSITIVE = "user__trusts_gigl_positive__user";
    public static final String NEGATIVE = "user__trusts_gigl_negative__user";

    private AblpGraphs() {
    }

    public static Path bitcoin(Path dir) throws Exception {
        Path source = SharedData.graph("bitcoin_alpha_typed");
        Files.createDirectories(dir);
        List<String> trusts = Files.readAllLines(source.resolve("edges.user__trusts__user.tsv"));
        List<String> distrusts = Files.readAllLines(source.resolve("edges.user__distrusts__user.tsv"));
        Set<String> anyEdge = new HashSet<>();
        for (List<String> file : List.of(trusts, distrusts)) {
            for (String line : file) {
                if (!line.startsWith("#")) {
                    String[] f = line.split("\t");
                    anyEdge.add(f[0] + ">" + f[1]);
                }
            }
        }
        StringBuilder kept = new StringBuilder("# directed=true columns=src,dst,weight,timestamp\n");
        StringBuilder positive = new StringBuilder("# directed=true columns=src,dst\n");
        List<Long> anchors = new ArrayList<>();
        int row = 0;
        for (String line : trusts) {
            if (line.startsWith("#")) {
                continue;
            }
            String[] f = line.split("\t");
            if (row++ % 5 == 2) {
                positive.append(f[0]).append('\t').append(f[1]).append('\n');
                anchors.add(Long.parseLong(f[0]));
            } else {
                kept.append(line).append('\n');
            }
        }
        StringBuilder negative = new StringBuilder("# directed=true columns=src,dst\n");
        Random random = new Random(7);
        for (long a : new java.util.TreeSet<>(anchors)) {
            for (int k = 0; k < 2; ) {
                int n = random.nextInt(3783);
                if (!anyEdge.contains(a + ">" + n)) {
                    negative.append(a).append('\t').append(n).append('\n');
                    k++;
                }
            }
        }
        Files.writeString(dir.resolve("edges.user__trusts__user.tsv"), kept);
        Files.writeString(dir.resolve("edges." + POSITIVE + ".tsv"), positive);
        Files.writeString(dir.resolve("edges." + NEGATIVE + ".tsv"), negative);
        Files.copy(source.resolve("edges.user__distrusts__user.tsv"), dir.resolve("edges.user__distrusts__user.tsv"));
        Files.copy(source.resolve("nodes.user.tsv"), dir.resolve("nodes.user.tsv"));
        return dir;
    }
}
