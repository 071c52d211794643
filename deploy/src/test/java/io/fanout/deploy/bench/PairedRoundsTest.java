package io.fanout.deploy.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Every side gets the same warm-up and rounds, and the order alternates from round to round. */
class PairedRoundsTest {
    @Test
    void sidesAlternateWithTheSameWarmupAndRounds() throws Exception {
        List<String> calls = new ArrayList<>();
        LinkedHashMap<String, PairedRounds.Side> sides = new LinkedHashMap<>();
        for (String name : List.of("a", "b")) {
            sides.put(name, round -> {
                calls.add(name + round);
                return Map.of("rate", name.equals("a") ? 10.0 + round : 20.0 + round);
            });
        }
        PairedRounds rounds = PairedRounds.run("test", 2, 3, sides, "rate", 0);
        // Warm-up rounds -2 and -1 (reported as -1), then rounds 0..2, each pair in turn reversed.
        assertThat(calls).containsExactly("a-1", "b-1", "b-1", "a-1", "a0", "b0", "b1", "a1", "a2", "b2");
        assertThat(rounds.values("a", "rate")).containsExactly(10, 11, 12);
        assertThat(rounds.values("b", "rate")).containsExactly(20, 21, 22);
        assertThat(rounds.last("a")).containsEntry("rate", 12.0);
    }

    @Test
    void aSideWaitsForABusyMachineAtMostTheGivenTime() throws Exception {
        // A spinning thread per CPU keeps the machine busy; the wait gives up after its limit and the side runs.
        var stop = new java.util.concurrent.atomic.AtomicBoolean();
        List<Thread> spinners = new ArrayList<>();
        for (int i = 0; i < Runtime.getRuntime().availableProcessors(); i++) {
            Thread spinner = new Thread(() -> {
                long x = 0;
                while (!stop.get()) {
                    x++;
                }
            });
            spinner.start();
            spinners.add(spinner);
        }
        try {
            long start = System.nanoTime();
            PairedRounds.awaitQuiet("busy", 1_000_000_000L);
            double waited = (System.nanoTime() - start) / 1e9;
            // The full second (plus the last 250 ms sample), not more.
            assertThat(waited).isBetween(0.9, 3.0);
        } finally {
            stop.set(true);
            for (Thread spinner : spinners) {
                spinner.join();
            }
        }
    }
}
