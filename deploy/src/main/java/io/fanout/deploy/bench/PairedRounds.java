package io.fanout.deploy.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Paired, alternated rounds of the sides of one comparison: every side gets the same warm-up and the same rounds,
 * round i runs all sides back to back (in the given order on even rounds, reversed on odd ones), so a slow or fast
 * spell of a shared machine hits the sides of a round alike and no side always runs first. Every side starts on a
 * quiet machine ({@link #awaitQuiet}).
 */
final class PairedRounds {
    /** One measurement of one side: named values (e.g. {@code edges_per_s}); {@code round} is -1 in the warm-up. */
    interface Side {
        Map<String, Double> measure(int round) throws Exception;
    }

    private final Map<String, List<Map<String, Double>>> rounds = new LinkedHashMap<>();
    private final Map<String, Map<String, Double>> last = new LinkedHashMap<>();

    private PairedRounds() {}

    /**
     * Runs {@code warmup} discarded rounds, then {@code count} measured rounds, of the sides (in insertion order);
     * prints one line per measured round with each side's {@code metric}.
     */
    static PairedRounds run(String what, int warmup, int count, LinkedHashMap<String, Side> sides, String metric)
            throws Exception {
        return run(what, warmup, count, sides, metric, MAX_QUIET_WAIT_NANOS);
    }

    /** As above, waiting at most {@code maxQuietWaitNanos} for quiet before each side (0: no wait). */
    static PairedRounds run(String what, int warmup, int count, LinkedHashMap<String, Side> sides, String metric,
            long maxQuietWaitNanos) throws Exception {
        PairedRounds result = new PairedRounds();
        List<String> names = new ArrayList<>(sides.keySet());
        for (int round = -warmup; round < count; round++) {
            List<String> order = new ArrayList<>(names);
            if (Math.floorMod(round, 2) == 1) {
                java.util.Collections.reverse(order);
            }
            StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "  %s %s:", what,
                    round < 0 ? "warm-up" : "round " + (round + 1)));
            Map<String, Map<String, Double>> values = new LinkedHashMap<>();
            for (String name : order) {
                awaitQuiet(name, maxQuietWaitNanos);
                values.put(name, sides.get(name).measure(Math.max(round, -1)));
            }
            for (String name : order) {
                result.last.put(name, values.get(name));
                if (round >= 0) {
                    result.rounds.computeIfAbsent(name, k -> new ArrayList<>()).add(values.get(name));
                }
                line.append(String.format(Locale.ROOT, "  %s %,.0f", name, values.get(name).get(metric)));
            }
            System.out.println(line.append(' ').append(metric));
        }
        return result;
    }

    /** Busy share of all CPUs below which the machine counts as quiet (over 250 ms of /proc/stat). */
    private static final double QUIET = 0.10;
    /** The longest wait for quiet before a side runs anyway (by default). */
    static final long MAX_QUIET_WAIT_NANOS = 20_000_000_000L;

    /**
     * Waits, at most {@code maxWaitNanos}, until the machine's CPUs are idle (below {@link #QUIET} busy over 250 ms)
     * before a side runs: what the previous side left running (a finished job's threads winding down, JIT
     * compilation, a child process exiting) otherwise slows whichever side comes next, and a single-threaded
     * reference shares a core's caches with it. Prints a line when it waited long or gave up. Without /proc/stat it
     * does not wait.
     */
    static void awaitQuiet(String side, long maxWaitNanos) throws InterruptedException {
        if (maxWaitNanos <= 0) {
            return;
        }
        long start = System.nanoTime();
        double busy;
        do {
            busy = busyShare(250);
            if (busy < 0) {
                return;
            }
        } while (busy >= QUIET && System.nanoTime() - start < maxWaitNanos);
        double waited = (System.nanoTime() - start) / 1e9;
        if (busy >= QUIET) {
            System.out.printf(Locale.ROOT, "    (%s: the machine stayed %.0f %% busy for %.0f s; measuring anyway)%n",
                    side, 100 * busy, waited);
        } else if (waited > 2) {
            System.out.printf(Locale.ROOT, "    (%s: waited %.1f s for the machine to go quiet)%n", side, waited);
        }
    }

    /** The busy share of all CPUs over the next {@code millis} ms from /proc/stat, or -1 where there is none. */
    private static double busyShare(long millis) throws InterruptedException {
        long[] a = cpuTimes();
        Thread.sleep(millis);
        long[] b = cpuTimes();
        if (a == null || b == null || b[0] <= a[0]) {
            return -1;
        }
        return 1 - (double) (b[1] - a[1]) / (b[0] - a[0]);
    }

    /** Total and idle (idle + iowait) jiffies of the "cpu" line of /proc/stat, or null. */
    private static long[] cpuTimes() {
        try {
            String line = java.nio.file.Files.readAllLines(java.nio.file.Path.of("/proc/stat")).get(0);
            String[] f = line.trim().split("\\s+");
            long total = 0;
            for (int i = 1; i <= 8 && i < f.length; i++) { // user .. steal; guest time is within user already
                total += Long.parseLong(f[i]);
            }
            return new long[] {total, Long.parseLong(f[4]) + Long.parseLong(f[5])};
        } catch (java.io.IOException | RuntimeException e) {
            return null;
        }
    }

    /** The measured rounds' values of one side's metric, in round order. */
    double[] values(String side, String metric) {
        return rounds.get(side).stream().mapToDouble(m -> m.get(metric)).toArray();
    }

    /** The last measurement of a side (for details that are not ratios, such as a job's batch count). */
    Map<String, Double> last(String side) {
        return last.get(side);
    }
}
