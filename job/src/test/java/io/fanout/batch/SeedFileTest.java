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
        // Each chunk opened on its own (as a reader resuming there), and all of them in one pass.
        for (int chunk : new int[] {0, 1, 30, 31, 141, 142}) {
            try (SeedFile.Cursor cursor = index.open(chunk)) {
                long[] read = cursor.nextChunk();
                int first = (int) index.firstPosition(chunk);
                assertThat(read).containsExactly(ids.subList(first, first + read.length).stream()
                        .mapToLong(Long::longValue).toArray());
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
        Path timed = write("timed.txt", "1\t100\n");
        assertThatThrownBy(() -> SeedFile.index(timed, 4)).hasMessageContaining(timed + ":1")
                .hasMessageContaining("seed time");
        Path huge = write("huge.txt", "1\n99999999999999999999\n");
        assertThatThrownBy(() -> SeedFile.index(huge, 4)).hasMessageContaining(huge + ":2")
                .hasMessageContaining("beyond int64");
        Path empty = write("empty.txt", "# nothing\n\n");
        assertThatThrownBy(() -> SeedFile.index(empty, 4)).hasMessageContaining("no seed ids");
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
