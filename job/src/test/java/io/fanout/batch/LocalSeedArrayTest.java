package io.fanout.batch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** A seed file's local copy read by position: real files, plain and gzipped. */
class LocalSeedArrayTest {
    @TempDir
    Path tmp;

    /** 20,000 int64 seeds (sparse, duplicated) between comments and blank lines; their ids in order into {@code ids}. */
    private Path seedFile(String name, List<Long> ids) throws IOException {
        return seedFile(name, ids, null);
    }

    /** As above; with {@code times} given, each line gives a time (int64, negative too), in order into it. */
    private Path seedFile(String name, List<Long> ids, List<Long> times) throws IOException {
        StringBuilder text = new StringBuilder("# seeds\n");
        for (int i = 0; i < 20_000; i++) {
            long id = i % 7 == 0 ? Long.MAX_VALUE - i : i % 11 == 0 ? 42 : (1L << 40) + 3L * i;
            ids.add(id);
            text.append(id);
            if (times != null) {
                long time = i % 3 == 0 ? -1_000_000_007L * i : i % 5 == 0 ? Long.MIN_VALUE + i : 13L * i;
                times.add(time);
                text.append('\t').append(time);
            }
            text.append(i % 1000 == 0 ? "\n\n# more\n" : "\n");
        }
        Path file = tmp.resolve(name);
        try (OutputStream out = name.endsWith(".gz") ? new GZIPOutputStream(Files.newOutputStream(file))
                : Files.newOutputStream(file)) {
            out.write(text.toString().getBytes(StandardCharsets.UTF_8));
        }
        return file;
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"seeds.txt", "seeds.txt.gz"})
    void everyBatchOfAShuffledAndAnUnshuffledPlanReadsTheFilesIdsAtItsPositions(String name) throws IOException {
        List<Long> ids = new ArrayList<>();
        SeedFile file = SeedFile.index(seedFile(name, ids), 333);
        Path dir = tmp.resolve("local");
        try (LocalSeedArray array = LocalSeedArray.write(file, dir)) {
            assertThat(array.numSeeds()).isEqualTo(20_000);
            assertThat(Files.size(array.file())).as("8 bytes per seed").isEqualTo(8L * 20_000);
            // More than the 8,192 ids one read takes: an unshuffled batch is read in runs.
            for (boolean shuffle : new boolean[] {false, true}) {
                BatchPlan plan = new BatchPlan(SeedSet.counted(file), 9000, shuffle, false, 2, 3L);
                for (int epoch = 0; epoch < 2; epoch++) {
                    EpochOrder order = plan.order(epoch);
                    for (int batch = 0; batch < plan.numBatches(); batch++) {
                        int[] positions = order.inputIdsOf(batch);
                        long[] read = array.read(positions);
                        for (int i = 0; i < positions.length; i++) {
                            assertThat(read[i]).isEqualTo(ids.get(positions[i]));
                        }
                    }
                }
            }
            assertThat(array.read(new int[] {19_999, 0, 1, 2, 19_998, 19_999}))
                    .containsExactly(ids.get(19_999), ids.get(0), ids.get(1), ids.get(2), ids.get(19_998),
                            ids.get(19_999));
            assertThatThrownBy(() -> array.read(new int[] {19_999, 20_000}))
                    .isInstanceOf(IndexOutOfBoundsException.class).hasMessageContaining("20000");
            assertThat(array.timed()).isFalse();
            assertThatThrownBy(() -> array.read(new int[] {0}, new long[1])).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("no times");
        }
        try (var left = Files.list(dir)) {
            assertThat(left.toList()).as("closing deletes the copy").isEmpty();
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"seeds.tsv", "seeds.tsv.gz"})
    void aTimedFilesTimesAreReadWithItsIdsAtShuffledPositions(String name) throws IOException {
        List<Long> ids = new ArrayList<>();
        List<Long> times = new ArrayList<>();
        SeedFile file = SeedFile.index(seedFile(name, ids, times), 333);
        assertThat(file.timed()).isTrue();
        Path dir = tmp.resolve("local");
        try (LocalSeedArray array = LocalSeedArray.write(file, dir)) {
            assertThat(array.timed()).isTrue();
            assertThat(Files.size(array.file())).as("an id and a time per seed").isEqualTo(16L * 20_000)
                    .isEqualTo(array.bytes());
            // Every position once in a random order, in batches of 9,000 (over one read's 8,192 records), and the
            // shuffled and unshuffled plans' batches.
            List<int[]> batches = new ArrayList<>();
            List<Integer> all = new ArrayList<>(java.util.stream.IntStream.range(0, 20_000).boxed().toList());
            java.util.Collections.shuffle(all, new java.util.Random(5));
            for (int from = 0; from < all.size(); from += 9000) {
                batches.add(all.subList(from, Math.min(from + 9000, all.size())).stream().mapToInt(Integer::intValue)
                        .toArray());
            }
            for (boolean shuffle : new boolean[] {false, true}) {
                BatchPlan plan = new BatchPlan(SeedSet.counted(file), 9000, shuffle, false, 1, 3L);
                for (int batch = 0; batch < plan.numBatches(); batch++) {
                    batches.add(plan.order(0).inputIdsOf(batch));
                }
            }
            batches.add(new int[] {19_999, 0, 1, 2, 19_998, 19_999, 5});
            for (int[] positions : batches) {
                long[] readTimes = new long[positions.length];
                long[] readIds = array.read(positions, readTimes);
                for (int i = 0; i < positions.length; i++) {
                    assertThat(readIds[i]).isEqualTo(ids.get(positions[i]));
                    assertThat(readTimes[i]).isEqualTo(times.get(positions[i]));
                }
                assertThat(array.read(positions)).as("the ids alone").isEqualTo(readIds);
            }
        }
        try (var left = Files.list(dir)) {
            assertThat(left.toList()).as("closing deletes the copy").isEmpty();
        }
    }

    @Test
    void aSeedFileChangedAfterItWasIndexedFailsNamingItAndLeavesNoCopy() throws IOException {
        List<Long> ids = new ArrayList<>();
        Path path = seedFile("seeds.txt", ids);
        SeedFile file = SeedFile.index(path, 100);
        Files.writeString(path, "1\n2\n");
        Path dir = tmp.resolve("local");
        assertThatThrownBy(() -> LocalSeedArray.write(file, dir))
                .isInstanceOf(SeedFile.SeedFileChangedException.class)
                .hasMessageContaining(path.toString()).hasMessageContaining("changed after the job was planned");
        try (var left = Files.list(dir)) {
            assertThat(left.toList()).isEmpty();
        }
    }
}
