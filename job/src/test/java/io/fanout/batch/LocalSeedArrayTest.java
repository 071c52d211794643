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
        StringBuilder text = new StringBuilder("# seeds\n");
        for (int i = 0; i < 20_000; i++) {
            long id = i % 7 == 0 ? Long.MAX_VALUE - i : i % 11 == 0 ? 42 : (1L << 40) + 3L * i;
            ids.add(id);
            text.append(id).append(i % 1000 == 0 ? "\n\n# more\n" : "\n");
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
