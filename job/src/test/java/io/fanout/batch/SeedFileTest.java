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

class SeedFileTest {
    @TempDir
    Path tmp;

    /** 1,000 seeds (ids with gaps, int64, duplicates) between comments, blank lines and CRLF ends. */
    private static String messyText(List<Long> ids) {
        StringBuilder text = new StringBuilder("# training split\n\n");
        for (int i = 0; i < 1000; i++) {
            long id = i % 97 == 0 ? (1L << 40) + i : i % 13 == 0 ? 5 : i * 3L;
            ids.add(id);
            text.append(i % 5 == 0 ? "  " + id + " \r\n" : id + "\n");
            if (i % 211 == 0) {
                text.append("# a comment\n\n");
            }
        }
        return text.append("# end").toString();
    }

    private Path write(String name, String text) throws IOException {
        Path file = tmp.resolve(name);
        if (name.endsWith(".gz")) {
            try (OutputStream out = new GZIPOutputStream(Files.newOutputStream(file))) {
                out.write(text.getBytes(StandardCharsets.UTF_8));
            }
        } else {
            Files.writeString(file, text);
        }
        return file;
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"seeds.txt", "seeds.txt.gz"})
    void everyChunkReadFromItsOwnStartGivesTheFileSeedsInOrder(String name) throws IOException {
        List<Long> ids = new ArrayList<>();
        Path file = write(name, messyText(ids));
        SeedFile index = SeedFile.index(file, 7);
        assertThat(index.numSeeds()).isEqualTo(1000);
        assertThat(index.numChunks()).isEqualTo(143); // 142 of 7 and one of 6
        assertThat(index.chunkLength(142)).isEqualTo(6);
        assertThat(index.isGzip()).isEqualTo(name.endsWith(".gz"));
        assertThat(index.timed()).isFalse();
        // Each chunk opened on its own (as a reader resuming there), and all of them in one pass.
        for (int chunk : new int[] {0, 1, 30, 31, 141, 142}) {
            try (SeedFile.Cursor cursor = index.open(chunk)) {
                long[] read = cursor.nextChunk();
                int first = (int) index.firstPosition(chunk);
                assertThat(read).containsExactly(ids.subList(first, first + read.length).stream()
                        .mapToLong(Long::longValue).toArray());
                assertThat(cursor.lastTimes()).as("an untimed file gives no times").isNull();
            }
        }
        List<Long> all = new ArrayList<>();
        try (SeedFile.Cursor cursor = index.open(0)) {
            while (cursor.chunk() < index.numChunks()) {
                for (long id : cursor.nextChunk()) {
                    all.add(id);
                }
            }
        }
        assertThat(all).isEqualTo(ids);
    }

    /**
     * What the client plans and ships (the seed file index in the source, the plan) does not grow with the seeds:
     * 3,000,000 seed lines (about 24 MB) serialize, index and plan together, to a few kilobytes.
     */
    @Test
    void thePlanShippedToTheClusterDoesNotGrowWithTheSeeds() throws IOException {
        Path file = tmp.resolve("many.txt");
        try (java.io.Writer out = Files.newBufferedWriter(file)) {
            for (int i = 0; i < 3_000_000; i++) {
                out.write(Long.toString(1_000_000_007L * i % 998_244_353L));
                out.write('\n');
            }
        }
        SeedFile index = SeedFile.index(file, 16_384);
        BatchPlan plan = new BatchPlan(SeedSet.counted(index), 512, true, false, 10, 1L);
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        try (java.io.ObjectOutputStream out = new java.io.ObjectOutputStream(bytes)) {
            out.writeObject(index);
            out.writeObject(plan);
        }
        assertThat(Files.size(file)).isGreaterThan(20_000_000);
        assertThat(index.numChunks()).isEqualTo(184);
        assertThat(bytes.size()).as("serialized index and plan").isLessThan(8_192);
    }

    @Test
    void theDigestFollowsTheSeedsNotTheChunking() throws IOException {
        Path a = write("a.txt", "1\n2\n3\n");
        Path b = write("b.txt", "1\n2\n4\n");
        assertThat(SeedFile.index(a, 1).contentHash()).isEqualTo(SeedFile.index(a, 2).contentHash())
                .isNotEqualTo(SeedFile.index(b, 1).contentHash());
        // The plan fingerprint over a counted set changes with the file.
        String planA = new BatchPlan(SeedSet.counted(SeedFile.index(a, 2)), 2, true, false, 1, 1L).fingerprint();
        assertThat(planA)
                .isNotEqualTo(new BatchPlan(SeedSet.counted(SeedFile.index(b, 2)), 2, true, false, 1, 1L).fingerprint())
                // A restored reader's position is a chunk index: another chunking is another plan.
                .isNotEqualTo(new BatchPlan(SeedSet.counted(SeedFile.index(a, 1)), 2, true, false, 1, 1L).fingerprint())
                .isEqualTo(new BatchPlan(SeedSet.counted(SeedFile.index(a, 2)), 2, true, false, 1, 1L).fingerprint());
    }

    @Test
    void linesOutsideThePlainDigitsPathReadAsTheMemoryStoreReadsThem() throws IOException {
        // Tabs, form feeds, vertical tabs and CR around ids, a last line without its end: SeedSet.parse's rule.
        Path file = write("odd.txt", "\t 7\f\n\u000B8\n9 \r\n  # note\n\f\n00012\n3");
        long[] expected = java.util.Arrays.stream(SeedSet.parse(file.toString(), 100).toArray()).asLongStream().toArray();
        SeedFile index = SeedFile.index(file, 4);
        try (SeedFile.Cursor cursor = index.open(0)) {
            long[] first = cursor.nextChunk();
            long[] second = cursor.nextChunk();
            long[] all = java.util.stream.LongStream.concat(java.util.Arrays.stream(first), java.util.Arrays.stream(second))
                    .toArray();
            assertThat(all).containsExactly(expected).containsExactly(7, 8, 9, 12, 3);
        }
    }

    @Test
    void badLinesFailNamingFileAndLine() throws IOException {
        Path negative = write("negative.txt", "1\n2\n# c\n-3\n");
        assertThatThrownBy(() -> SeedFile.index(negative, 4)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(negative + ":4").hasMessageContaining("negative seed id");
        Path word = write("word.txt.gz", "1\nx7\n");
        assertThatThrownBy(() -> SeedFile.index(word, 4)).hasMessageContaining(word + ":2")
                .hasMessageContaining("not a non-negative integer");
        Path fields = write("fields.txt", "1\t100\t7\n");
        assertThatThrownBy(() -> SeedFile.index(fields, 4)).hasMessage(fields + ":1: expected 'id' or 'id<TAB>time',"
                + " got 3 fields");
        Path huge = write("huge.txt", "1\n99999999999999999999\n");
        assertThatThrownBy(() -> SeedFile.index(huge, 4)).hasMessageContaining(huge + ":2")
                .hasMessageContaining("beyond int64");
        Path empty = write("empty.txt", "# nothing\n\n");
        assertThatThrownBy(() -> SeedFile.index(empty, 4)).hasMessageContaining("no seed ids");
    }

    /**
     * 1,000 timed seeds (ids below 5,000; times negative, zero, int64's ends) between comments and blank lines, with
     * CRLF ends, tabs or spaces between the columns, and lines only the general rule reads (a {@code +} time, form
     * feeds, the smallest int64); their ids and times in order into {@code ids} and {@code times}.
     */
    private static String timedText(List<Long> ids, List<Long> times) {
        StringBuilder text = new StringBuilder("# id<TAB>time\n\n");
        for (int i = 0; i < 1000; i++) {
            long id = i % 13 == 0 ? 5 : i * 3L;
            long time = i == 1 ? Long.MIN_VALUE : i == 2 ? Long.MAX_VALUE : i % 3 == 0 ? -1_000_003L * i : 7L * i;
            ids.add(id);
            times.add(time);
            String line = i % 5 == 0 ? "  " + id + "   " + time + " \r\n" : i % 7 == 0 ? id + " \t" + time + "\n"
                    : i % 11 == 0 && time >= 0 ? "\f" + id + "\t+" + time + "\n" : id + "\t" + time + "\n";
            text.append(line);
            if (i % 211 == 0) {
                text.append("# a comment\n\n");
            }
        }
        return text.append("# end").toString();
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"seeds.tsv", "seeds.tsv.gz"})
    void aTimedFileGivesEachChunksTimesWithItsIdsAsTheMemoryStoreReadsThem(String name) throws IOException {
        List<Long> ids = new ArrayList<>();
        List<Long> times = new ArrayList<>();
        Path file = write(name, timedText(ids, times));
        // The memory store's reading of the same file: the same ids and times in the same order.
        SeedSet memory = SeedSet.parse(file.toString(), 5000);
        assertThat(memory.times()).containsExactly(times.stream().mapToLong(Long::longValue).toArray());
        for (int seedsPerChunk : new int[] {1, 7, 250, 1000, 4096}) {
            SeedFile index = SeedFile.index(file, seedsPerChunk);
            assertThat(index.timed()).isTrue();
            assertThat(index.numSeeds()).isEqualTo(1000);
            assertThat(index.toString()).contains("1000 timed seeds");
            List<Long> readIds = new ArrayList<>();
            List<Long> readTimes = new ArrayList<>();
            try (SeedFile.Cursor cursor = index.open(0)) {
                assertThat(cursor.lastTimes()).as("before the first chunk").isNull();
                while (cursor.chunk() < index.numChunks()) {
                    int chunk = cursor.chunk();
                    long[] chunkIds = cursor.nextChunk();
                    long[] chunkTimes = cursor.lastTimes();
                    assertThat(chunkTimes).hasSameSizeAs(chunkIds).hasSize(index.chunkLength(chunk));
                    for (int i = 0; i < chunkIds.length; i++) {
                        readIds.add(chunkIds[i]);
                        readTimes.add(chunkTimes[i]);
                    }
                }
            }
            assertThat(readIds).as("chunks of %d", seedsPerChunk).isEqualTo(ids);
            assertThat(readTimes).as("chunks of %d", seedsPerChunk).isEqualTo(times);
            // A chunk opened on its own (a reader resuming there) gives its own times.
            int last = index.numChunks() - 1;
            try (SeedFile.Cursor cursor = index.open(last)) {
                long[] chunkIds = cursor.nextChunk();
                int first = (int) index.firstPosition(last);
                assertThat(cursor.lastTimes()).containsExactly(times.subList(first, first + chunkIds.length).stream()
                        .mapToLong(Long::longValue).toArray());
            }
        }
    }

    @Test
    void linesWithAndWithoutTimesAreRefusedNamingTheLineAsTheMemoryStoreDoes() throws IOException {
        // A timed file with an untimed line later (plain digits, and one only the general rule reads), and the reverse.
        Path later = write("later.tsv", "# times\n1\t10\n2\t-20\n\n3\n");
        Path odd = write("odd.tsv", "1\t10\n\f2\f\n");
        Path reverse = write("reverse.txt", "1\n2\n# c\n3 30\n");
        // The all-or-none check comes before the id's own (as the memory store checks them).
        Path badId = write("bad-id.txt", "1\t10\nx7\n");
        for (Path file : List.of(later, odd, reverse, badId)) {
            String memory = messageOf(() -> SeedSet.parse(file.toString(), 100));
            assertThatThrownBy(() -> SeedFile.index(file, 2)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage(memory);
        }
        assertThatThrownBy(() -> SeedFile.index(later, 2)).hasMessage(later + ":5: line 2 gives a seed time and line 5"
                + " does not (all lines or none)");
        assertThatThrownBy(() -> SeedFile.index(reverse, 2)).hasMessage(reverse + ":4: line 4 gives a seed time and"
                + " line 1 does not (all lines or none)");
    }

    @Test
    void aBadSeedTimeIsRefusedNamingFileLineAndValueAsTheMemoryStoreDoes() throws IOException {
        Path word = write("word.tsv", "1\t10\n2\t12x\n");
        Path beyond = write("beyond.tsv.gz", "1\t10\n\n2\t9223372036854775808\n");
        Path dash = write("dash.tsv", "1\t-\n");
        Path decimal = write("decimal.tsv", "1 1.5\n");
        for (Path file : List.of(word, beyond, dash, decimal)) {
            String memory = messageOf(() -> SeedSet.parse(file.toString(), 100));
            assertThatThrownBy(() -> SeedFile.index(file, 2)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage(memory);
        }
        assertThatThrownBy(() -> SeedFile.index(word, 2))
                .hasMessage(word + ":2: seed time '12x' is not a whole number");
        assertThatThrownBy(() -> SeedFile.index(beyond, 2))
                .hasMessage(beyond + ":3: seed time '9223372036854775808' is not a whole number");
    }

    @Test
    void aTimedFilesDigestCoversItsTimes() throws IOException {
        Path a = write("a.tsv", "1\t10\n2\t20\n");
        Path b = write("b.tsv", "1\t10\n2\t21\n");
        assertThat(SeedFile.index(a, 1).contentHash()).isNotEqualTo(SeedFile.index(b, 1).contentHash());
    }

    private static String messageOf(org.assertj.core.api.ThrowableAssert.ThrowingCallable call) {
        Throwable thrown = org.assertj.core.api.Assertions.catchThrowable(call);
        assertThat(thrown).isInstanceOf(IllegalArgumentException.class);
        return thrown.getMessage();
    }

    @Test
    void aFileChangedAfterIndexingIsRefusedNamingIt() throws IOException {
        Path file = write("seeds.txt", "1\n2\n3\n");
        SeedFile index = SeedFile.index(file, 2);
        Files.writeString(file, "1\n2\n3\n4\n5\n");
        assertThatThrownBy(() -> index.open(0)).isInstanceOf(IOException.class).hasMessageContaining(file.toString())
                .hasMessageContaining("changed");
        // Not there at all (a TaskManager that does not see the client's directory): refused the same way.
        Files.delete(file);
        assertThatThrownBy(() -> index.open(1)).isInstanceOf(SeedFile.SeedFileChangedException.class)
                .hasMessageStartingWith(file + ": no such seed file on ")
                .hasMessageContaining("every TaskManager must see the file");
    }
}
