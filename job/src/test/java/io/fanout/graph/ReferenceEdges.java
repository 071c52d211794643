package io.fanout.graph;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.GZIPInputStream;

/** A deliberately naive edge-file reader (String.split per line) that tests hold the fast loader against. */
final class ReferenceEdges {
    final boolean directed;
    final int[] src;
    final int[] dst;
    final double[] weights; // null without a weight column
    final long[] timestamps; // null without a timestamp column
    final int rows;

    private ReferenceEdges(boolean directed, int[] src, int[] dst, double[] weights, long[] timestamps, int rows) {
        this.directed = directed;
        this.src = src;
        this.dst = dst;
        this.weights = weights;
        this.timestamps = timestamps;
        this.rows = rows;
    }

    /** Reads a shared-data edge file (header on line 1, columns=src,dst[,weight[,timestamp]]). */
    static ReferenceEdges read(Path file) throws IOException {
        InputStream in = Files.newInputStream(file);
        if (file.toString().endsWith(".gz")) {
            in = new GZIPInputStream(in);
        }
        try (BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
            String header = reader.readLine();
            assertThat(header).startsWith("#");
            boolean directed = !header.contains("directed=false");
            boolean weighted = header.contains("weight");
            boolean timed = header.contains(",timestamp");
            int capacity = 1 << 16;
            int[] src = new int[capacity];
            int[] dst = new int[capacity];
            double[] w = new double[capacity];
            long[] t = new long[capacity];
            int n = 0;
            String line;
            while ((line = reader.readLine()) != null) {
                if (line.startsWith("#")) {
                    continue;
                }
                String[] f = line.split("\t");
                if (n == src.length) {
                    capacity *= 2;
                    src = java.util.Arrays.copyOf(src, capacity);
                    dst = java.util.Arrays.copyOf(dst, capacity);
                    w = java.util.Arrays.copyOf(w, capacity);
                    t = java.util.Arrays.copyOf(t, capacity);
                }
                src[n] = Integer.parseInt(f[0]);
                dst[n] = Integer.parseInt(f[1]);
                if (weighted) {
                    w[n] = Double.parseDouble(f[2]);
                }
                if (timed) {
                    t[n] = Long.parseLong(f[3]);
                }
                n++;
            }
            return new ReferenceEdges(directed, src, dst, weighted ? w : null, timed ? t : null, n);
        }
    }

    /**
     * Asserts that {@code csr} is exactly the stable CSR of these rows in {@code direction}: walking the rows in file
     * order, each row's edge is the next unread entry of its source node (and of its destination when undirected),
     * with the same weight and timestamp, and every node's list is used up at the end.
     */
    void assertSameAs(CsrGraph csr, EdgeDirection direction) {
        int[] targets = csr.targets();
        int[] cursor = java.util.Arrays.copyOf(csr.offsets(), csr.numNodes());
        for (int i = 0; i < rows; i++) {
            int from = direction == EdgeDirection.OUT || !directed ? src[i] : dst[i];
            int to = direction == EdgeDirection.OUT || !directed ? dst[i] : src[i];
            expectNext(csr, cursor, i, from, to);
            if (!directed && from != to) {
                expectNext(csr, cursor, i, to, from);
            }
        }
        for (int v = 0; v < csr.numNodes(); v++) {
            if (cursor[v] != csr.end(v)) {
                throw new AssertionError("node " + v + " has " + (csr.end(v) - cursor[v]) + " edges not in the file");
            }
        }
        assertThat(targets.length).isEqualTo(storedEdges());
    }

    private void expectNext(CsrGraph csr, int[] cursor, int row, int from, int to) {
        int at = cursor[from]++;
        if (at >= csr.end(from) || csr.targets()[at] != to) {
            throw new AssertionError("row " + row + " (" + from + " -> " + to + ") is not the next edge of node " + from
                    + " in " + csr.direction() + " CSR (found " + (at < csr.end(from) ? csr.targets()[at] : "end") + ")");
        }
        if (weights != null && csr.weights()[at] != (float) weights[row]) {
            throw new AssertionError("row " + row + ": weight " + csr.weights()[at] + " != " + weights[row]);
        }
        if (timestamps != null && csr.timestamps()[at] != timestamps[row]) {
            throw new AssertionError("row " + row + ": timestamp " + csr.timestamps()[at] + " != " + timestamps[row]);
        }
    }

    /** Directed edges the CSR must hold: an undirected non-loop row counts twice. */
    long storedEdges() {
        long stored = 0;
        for (int i = 0; i < rows; i++) {
            stored += !directed && src[i] != dst[i] ? 2 : 1;
        }
        return stored;
    }

    long selfLoops() {
        long loops = 0;
        for (int i = 0; i < rows; i++) {
            loops += src[i] == dst[i] ? 1 : 0;
        }
        return loops;
    }
}
