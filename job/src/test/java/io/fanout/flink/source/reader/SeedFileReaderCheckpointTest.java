package io.fanout.flink.source.reader;

import static org.assertj.core.api.Assertions.assertThat;

import io.fanout.batch.BatchPlan;
import io.fanout.batch.SeedFile;
import io.fanout.batch.SeedSet;
import io.fanout.batch.SeedSlot;
import io.fanout.flink.source.LocalSourceRun;
import io.fanout.flink.source.SeedFileSource;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class SeedFileReaderCheckpointTest {
    @TempDir
    Path tmp;

    /**
     * 1,001 seeds (node id = 10 x position + 3) in chunks of 50 (21 chunks), batches of 64 with drop-last (15 per
     * epoch, 41 seeds dropped each epoch), shuffled, 3 epochs: whatever the snapshot point, the slots before it and
     * those of the restored run are every (epoch, batch, place) exactly once, holding the seed the plan puts there
     * (with its time, -7 x position, from a timed file; 0 from an untimed one).
     */
    @ParameterizedTest(name = "parallelism {0}, snapshot after {1} chunks, timed {2}")
    @CsvSource({"1, 0, false", "1, 1, true", "1, 20, false", "1, 21, true", "1, 40, false", "2, 3, true",
            "2, 22, false", "2, 62, true"})
    void restoreFromSnapshotPlacesEverySeedExactlyOnce(int parallelism, int snapshotAfter, boolean timed)
            throws Exception {
        StringBuilder text = new StringBuilder();
        for (int p = 0; p < 1001; p++) {
            text.append(10L * p + 3).append(timed ? "\t" + (-7L * p) : "").append('\n');
        }
        Path file = Files.writeString(tmp.resolve("seeds.txt"), text);
        SeedFile seeds = SeedFile.index(file, 50);
        BatchPlan plan = new BatchPlan(SeedSet.counted(seeds), 64, true, true, 3, 11L);
        SeedFileSource source = new SeedFileSource(seeds, plan);

        LocalSourceRun<SeedSlot> first = LocalSourceRun.start(source, parallelism);
        pollChunks(first, parallelism, snapshotAfter);
        LocalSourceRun.Snapshot snapshot = first.snapshot(1);
        List<SeedSlot> slots = new ArrayList<>(first.emitted.stream().map(LocalSourceRun.Emitted::record).toList());
        pollChunks(first, parallelism, 2); // lost in the failure

        LocalSourceRun<SeedSlot> restored = LocalSourceRun.restore(source, parallelism, snapshot);
        restored.runToEnd();
        restored.emitted.forEach(e -> slots.add(e.record()));
        assertThat(restored.allEnded()).isTrue();

        Map<Long, SeedSlot> byPlace = new HashMap<>();
        for (SeedSlot slot : slots) {
            long place = ((long) slot.epoch * plan.numBatches() + slot.batchId) * 64 + slot.index;
            assertThat(byPlace.put(place, slot)).as("twice: %s", slot).isNull();
            assertThat(slot.id).isEqualTo(10L * slot.position + 3);
            assertThat(slot.time).isEqualTo(timed ? -7L * slot.position : 0);
        }
        assertThat(byPlace).hasSize(3 * 15 * 64);
        for (int epoch = 0; epoch < 3; epoch++) {
            for (int batch = 0; batch < 15; batch++) {
                int[] positions = plan.order(epoch).inputIdsOf(batch);
                for (int i = 0; i < 64; i++) {
                    long place = ((long) epoch * plan.numBatches() + batch) * 64 + i;
                    assertThat(byPlace.get(place).position).isEqualTo(positions[i]);
                }
            }
        }
    }

    /** Polls the readers round-robin for {@code chunks} chunk reads in all (one poll reads one chunk). */
    private static void pollChunks(LocalSourceRun<SeedSlot> run, int parallelism, int chunks) throws Exception {
        int polled = 0;
        for (int round = 0; polled < chunks && !run.allEnded() && round < 10_000; round++) {
            int before = run.emitted.size();
            run.poll(round % parallelism);
            if (run.emitted.size() > before) {
                polled++;
            }
        }
    }
}
