package io.fanout.deploy.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Paired, alternated rounds of the sides of one comparison: every side gets the same warm-up and the same rounds,
 * round i runs all sides back to back (in the given order on even rounds, reversed on odd ones), so a slow or fast
 * spell of a shared machine hits the sides of a round alike and no side always runs first.
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

    /** The measured rounds' values of one side's metric, in round order. */
    double[] values(String side, String metric) {
        return rounds.get(side).stream().mapToDouble(m -> m.get(metric)).toArray();
    }

    /** The last measurement of a side (for details that are not ratios, such as a job's batch count). */
    Map<String, Double> last(String side) {
        return last.get(side);
    }
}
