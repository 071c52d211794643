package io.fanout.deploy.generate;

import io.fanout.random.SplitMix64;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Seeded R-MAT graph generator (Chakrabarti, Zhan, Faloutsos 2004; the Graph500 generator's model) writing the
 * edges.tsv format of shared/data/README.md as part files {@code edges.00000.tsv ...}, for benchmarks of graphs
 * larger than the shared ones.
 *
 * <p>Each edge picks one quadrant of the adjacency matrix per level ({@code scale} levels) with probabilities
 * a, b, c, d, so a few nodes get most edges (a power-law-like degree skew). Node ids are then scrambled by a
 * seeded bijection of {@code [0, 2^scale)}, as Graph500 does, so the hubs are not the lowest ids. Part
 * {@code p} draws from its own stream {@code seed(seed, p)}: the output depends on the seed, the sizes and the
 * part count only, never on the thread count. Memory is constant (one write buffer per thread); undirected
 * edges are written once with {@code src <= dst}, as the format asks.
 */
public final class RmatGenerator {
    /** What to generate. */
    public static final class Spec {
        public int scale = 20;
        public long edges = -1; // -1: edgeFactor * 2^scale
        public int edgeFactor = 16;
        public double a = 0.57;
        public double b = 0.19;
        public double c = 0.19;
        public long seed = 1;
        public int parts = 8;
        public boolean directed;
        public boolean scramble = true;

        long totalEdges() {
            return edges >= 0 ? edges : (long) edgeFactor << scale;
        }

        void validate() {
            if (scale < 1 || scale > 40) {
                throw new IllegalArgumentException("--scale must be 1..40, got " + scale);
            }
            if (a < 0 || b < 0 || c < 0 || a + b + c > 1 + 1e-12) {
                throw new IllegalArgumentException(String.format(Locale.ROOT,
                        "--a --b --c must be >= 0 with a+b+c <= 1 (d = 1-a-b-c), got %s %s %s", a, b, c));
            }
            if (parts < 1) {
                throw new IllegalArgumentException("--parts must be >= 1, got " + parts);
            }
            if (totalEdges() < 0) {
                throw new IllegalArgumentException("--edges must be >= 0, got " + edges);
            }
        }
    }

    private final Spec spec;
    // Quadrant thresholds as unsigned 32-bit fractions: one level takes 32 random bits.
    private final long ta;
    private final long tab;
    private final long tabc;
    private final long mask;
    private final long mul1;
    private final long mul2;

    public RmatGenerator(Spec spec) {
        spec.validate();
        this.spec = spec;
        this.ta = (long) (spec.a * 0x1p32);
        this.tab = (long) ((spec.a + spec.b) * 0x1p32);
        this.tabc = (long) ((spec.a + spec.b + spec.c) * 0x1p32);
        this.mask = (1L << spec.scale) - 1;
        this.mul1 = SplitMix64.mix(spec.seed ^ 0x5851F42D4C957F2DL) | 1;
        this.mul2 = SplitMix64.mix(spec.seed ^ 0x14057B7EF767814FL) | 1;
    }

    /** Edge rows of part {@code part}: the total split as evenly as possible, earlier parts taking the remainder. */
    public long edgesOfPart(int part) {
        long total = spec.totalEdges();
        return total / spec.parts + (part < total % spec.parts ? 1 : 0);
    }

    /** The part file's name: zero-padded, so the loader's plain string order is part order. */
    public static String partName(int part) {
        return String.format(Locale.ROOT, "edges.%05d.tsv", part);
    }

    /** The header line of part {@code part} (without the newline). */
    public String header(int part) {
        return String.format(Locale.ROOT, "# name=rmat-s%d-e%d-seed%d directed=%s num_edges=%d num_nodes=%d"
                + " columns=src,dst id_base=0 generator=rmat a=%s b=%s c=%s part=%d/%d", spec.scale,
                spec.totalEdges(), spec.seed, spec.directed, edgesOfPart(part), 1L << spec.scale, spec.a, spec.b,
                spec.c, part, spec.parts);
    }

    /** Receives generated edges. */
    public interface EdgeSink {
        void edge(long src, long dst) throws IOException;
    }

    /** Generates the edges of one part, in order, into {@code sink}. */
    public void generatePart(int part, EdgeSink sink) throws IOException {
        SplitMix64 rng = new SplitMix64(SplitMix64.seed(spec.seed, part));
        long n = edgesOfPart(part);
        int scale = spec.scale;
        for (long e = 0; e < n; e++) {
            long src = 0;
            long dst = 0;
            long bits = 0;
            for (int level = 0; level < scale; level++) {
                long r;
                if ((level & 1) == 0) {
                    bits = rng.nextLong();
                    r = bits >>> 32;
                } else {
                    r = bits & 0xFFFFFFFFL;
                }
                src <<= 1;
                dst <<= 1;
                if (r < ta) {
                    // quadrant a: (0, 0)
                } else if (r < tab) {
                    dst |= 1;
                } else if (r < tabc) {
                    src |= 1;
                } else {
                    src |= 1;
                    dst |= 1;
                }
            }
            if (spec.scramble) {
                src = scramble(src);
                dst = scramble(dst);
            }
            if (!spec.directed && src > dst) {
                long t = src;
                src = dst;
                dst = t;
            }
            sink.edge(src, dst);
        }
    }

    /** A seeded bijection of {@code [0, 2^scale)}: odd multiplications and xor-shifts modulo 2^scale. */
    long scramble(long x) {
        x = (x * mul1) & mask;
        x ^= x >>> ((spec.scale + 1) / 2);
        x = (x * mul2) & mask;
        x ^= x >>> ((spec.scale + 2) / 3);
        return x;
    }

    /** Writes every part into {@code dir} with {@code threads} threads; returns the edge rows written. */
    public long writeParts(Path dir, int threads) throws Exception {
        Files.createDirectories(dir);
        ExecutorService pool = Executors.newFixedThreadPool(Math.max(1, threads));
        try {
            List<Future<Long>> done = new ArrayList<>();
            for (int p = 0; p < spec.parts; p++) {
                int part = p;
                done.add(pool.submit(() -> writePart(dir.resolve(partName(part)), part)));
            }
            long rows = 0;
            for (Future<Long> f : done) {
                rows += f.get();
            }
            return rows;
        } finally {
            pool.shutdownNow();
        }
    }

    private long writePart(Path file, int part) throws IOException {
        try (OutputStream out = Files.newOutputStream(file)) {
            RowWriter w = new RowWriter(out);
            w.text(header(part) + "\n");
            long[] rows = {0};
            generatePart(part, (s, d) -> {
                w.row(s, d);
                rows[0]++;
            });
            w.flush();
            return rows[0];
        }
    }

    /** Formats "src\tdst\n" rows into a reused buffer (no String per row: the generator's hot path). */
    static final class RowWriter {
        private final OutputStream out;
        private final byte[] buf = new byte[1 << 20];
        private final byte[] digits = new byte[20];
        private int pos;

        RowWriter(OutputStream out) {
            this.out = out;
        }

        void text(String s) throws IOException {
            byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
            if (pos + bytes.length > buf.length) {
                flush();
            }
            System.arraycopy(bytes, 0, buf, pos, bytes.length);
            pos += bytes.length;
        }

        void row(long src, long dst) throws IOException {
            if (pos + 42 > buf.length) {
                flush();
            }
            number(src);
            buf[pos++] = '\t';
            number(dst);
            buf[pos++] = '\n';
        }

        private void number(long v) {
            int n = 0;
            do {
                digits[n++] = (byte) ('0' + (v % 10));
                v /= 10;
            } while (v != 0);
            while (n > 0) {
                buf[pos++] = digits[--n];
            }
        }

        void flush() throws IOException {
            out.write(buf, 0, pos);
            pos = 0;
        }
    }

    /** {@code fanout-gen-rmat --out DIR [--scale 20] [--edge-factor 16 | --edges N] [--a .57 --b .19 --c .19]
     * [--seed 1] [--parts 8] [--directed] [--no-scramble] [--threads cores]}. */
    public static void main(String[] args) throws Exception {
        Spec spec = new Spec();
        Path out = null;
        int threads = Runtime.getRuntime().availableProcessors();
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            switch (arg) {
                case "--directed": spec.directed = true; continue;
                case "--no-scramble": spec.scramble = false; continue;
                case "--help": case "-h":
                    System.out.println(USAGE);
                    return;
                default:
                    break;
            }
            if (i + 1 >= args.length) {
                fail(arg + " needs a value");
            }
            String v = args[++i];
            try {
                switch (arg) {
                    case "--out": out = Path.of(v); break;
                    case "--scale": spec.scale = Integer.parseInt(v); break;
                    case "--edge-factor": spec.edgeFactor = Integer.parseInt(v); break;
                    case "--edges": spec.edges = parseCount(v); break;
                    case "--a": spec.a = Double.parseDouble(v); break;
                    case "--b": spec.b = Double.parseDouble(v); break;
                    case "--c": spec.c = Double.parseDouble(v); break;
                    case "--seed": spec.seed = Long.parseLong(v); break;
                    case "--parts": spec.parts = Integer.parseInt(v); break;
                    case "--threads": threads = Integer.parseInt(v); break;
                    default: fail("unknown option " + arg);
                }
            } catch (NumberFormatException e) {
                fail(arg + ": not a number: " + v);
            }
        }
        if (out == null) {
            fail("--out DIR is required");
        }
        if (Files.isDirectory(out)) {
            try (var entries = Files.list(out)) {
                if (entries.anyMatch(p -> p.getFileName().toString().startsWith("edges"))) {
                    fail(out + " already holds edges*.tsv files: choose an empty or new directory");
                }
            }
        }
        RmatGenerator gen;
        try {
            gen = new RmatGenerator(spec);
        } catch (IllegalArgumentException e) {
            fail(e.getMessage());
            return;
        }
        long start = System.nanoTime();
        long rows = gen.writeParts(out, threads);
        double s = (System.nanoTime() - start) / 1e9;
        System.out.printf(Locale.ROOT, "wrote %,d edges (%s, 2^%d = %,d node ids) in %d parts to %s in %.1f s"
                + " (%,.0f edges/s, %d threads)%n", rows, spec.directed ? "directed" : "undirected", spec.scale,
                1L << spec.scale, spec.parts, out, s, rows / s, threads);
    }

    /** 100000000, 100M, 1.5G or 1e8. */
    public static long parseCount(String v) {
        String t = v.trim().toUpperCase(Locale.ROOT).replace("_", "");
        double mult = 1;
        if (t.endsWith("K")) {
            mult = 1e3;
        } else if (t.endsWith("M")) {
            mult = 1e6;
        } else if (t.endsWith("G")) {
            mult = 1e9;
        }
        if (mult != 1) {
            t = t.substring(0, t.length() - 1);
        }
        return Math.round(Double.parseDouble(t) * mult);
    }

    private static void fail(String message) {
        System.err.println("fanout-gen-rmat: " + message + "\n" + USAGE);
        System.exit(2);
    }

    static final String USAGE = "usage: fanout-gen-rmat --out DIR [--scale 20] [--edge-factor 16 | --edges N]"
            + " [--a 0.57 --b 0.19 --c 0.19] [--seed 1] [--parts 8] [--directed] [--no-scramble] [--threads N]";
}
