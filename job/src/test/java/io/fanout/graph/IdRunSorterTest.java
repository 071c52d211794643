package io.fanout.graph;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** {@link IdRunSorter}: every id back in ascending order through spilled runs, in merge rounds, files removed. */
class IdRunSorterTest {
    @TempDir
    Path tmp;

    @ParameterizedTest(name = "{0} ids, runs of {1}, distinct {2}")
    @CsvSource({"0, 16, true", "10, 16, false", "1000, 1000, true", "1000, 7, true", "1000, 7, false",
            "20000, 64, true", "20000, 3, false"})
    void returnsEveryIdAscendingThroughSpilledRuns(int count, int runIds, boolean distinct) throws IOException {
        Random random = new Random(count * 31L + runIds);
        List<Long> added = new ArrayList<>();
        long[] pool = {0, 1, 2, Long.MAX_VALUE, Long.MAX_VALUE - 1, 1L << 40};
        try (IdRunSorter sorter = new IdRunSorter(tmp, runIds, distinct)) {
            for (int i = 0; i < count; i++) {
                // Repeats within and across runs, small and huge ids.
                long id = i % 5 == 0 ? pool[random.nextInt(pool.length)]
                        : random.nextBoolean() ? random.nextInt(count + 1) : random.nextLong() >>> 1;
                sorter.add(id);
                added.add(id);
            }
            assertThat(sorter.added()).isEqualTo(count);
            assertThat(sorter.spilledRuns()).isEqualTo(count > runIds ? (count - 1) / runIds : 0);
            assertSortedBack(sorter, added, distinct);
            if (count / runIds > IdRunSorter.MAX_FAN_IN) {
                // Merged in rounds: never more run files than one merge opens, plus the merged ones.
                try (Stream<Path> files = Files.list(tmp)) {
                    assertThat(files.count()).isLessThanOrEqualTo(IdRunSorter.MAX_FAN_IN + 1);
                }
            }
        }
        try (Stream<Path> files = Files.list(tmp)) {
            assertThat(files).as("run files deleted on close").isEmpty();
        }
    }

    @ParameterizedTest(name = "ids below {0} in a bit set, distinct {1}")
    @CsvSource({"1, true", "1, false", "64, false", "5000, true", "5000, false", "100000, true", "100000, false"})
    void aBitSetForSmallIdsMergesWithTheRunsOfTheRest(long denseIds, boolean distinct) throws IOException {
        Random random = new Random(denseIds);
        List<Long> added = new ArrayList<>();
        try (IdRunSorter sorter = new IdRunSorter(tmp, 50, distinct, denseIds)) {
            for (int i = 0; i < 20_000; i++) {
                long id = random.nextInt(8) == 0 ? random.nextLong() >>> 1 : random.nextInt(10_000);
                sorter.add(id);
                added.add(id);
            }
            assertThat(sorter.added()).isEqualTo(added.size());
            assertSortedBack(sorter, added, distinct);
        }
        assertThatThrownBy(() -> new IdRunSorter(tmp, 4, true, -1)).hasMessageContaining("denseIds must be in");
    }

    /** The sorter's ids are {@code added} sorted, each once when {@code distinct}. */
    private static void assertSortedBack(IdRunSorter sorter, List<Long> added, boolean distinct) throws IOException {
        List<Long> got = new ArrayList<>();
        try (IdRunSorter.Cursor cursor = sorter.sorted()) {
            while (cursor.hasNext()) {
                got.add(cursor.next());
            }
        }
        Stream<Long> expected = added.stream().sorted();
        assertThat(got).containsExactlyElementsOf((distinct ? expected.distinct() : expected).toList());
    }

    @Test
    void sortedIsOnceAndAfterTheLastAdd() throws IOException {
        try (IdRunSorter sorter = new IdRunSorter(tmp, 4, true)) {
            sorter.add(3);
            sorter.sorted().close();
            assertThatThrownBy(() -> sorter.add(1)).isInstanceOf(IllegalStateException.class);
            assertThatThrownBy(sorter::sorted).isInstanceOf(IllegalStateException.class);
        }
        assertThatThrownBy(() -> new IdRunSorter(tmp, 1, true)).hasMessageContaining("runIds must be >= 2, got 1");
    }
}
