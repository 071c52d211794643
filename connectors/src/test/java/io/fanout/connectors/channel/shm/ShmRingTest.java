package io.fanout.connectors.channel.shm;

import io.fanout.connectors.channel.options.ShmOptions;
import io.fanout.connectors.channel.options.ShmSinkOptions;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.connectors.message.EncodedMessage;
import io.fanout.connectors.testing.Waits;
import java.io.IOException;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The ring writer against a byte-level reader in this JVM that maps the same file (written from
 * docs/shm-ring.md, like the Python reader); the Python reader itself is exercised across
 * processes by {@link ShmRingPythonReaderTest}.
 */
class ShmRingTest {
    private static final int CAP = 64 << 10;

    @TempDir
    Path dir;

    /** Reads records the way the Python reader does: positions from the header, records at position % capacity. */
    static final class ByteReader implements AutoCloseable {
        final FileChannel ch;
        final MappedByteBuffer buf;
        final long cap;
        long cursor;

        ByteReader(Path file) throws IOException {
            ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE);
            buf = ch.map(FileChannel.MapMode.READ_WRITE, 0, ch.size());
            buf.order(ByteOrder.LITTLE_ENDIAN);
            cap = buf.getLong(ShmRing.OFF_CAPACITY);
        }

        /** The next record (epoch, batch, numBatches, blob) or null when none is written. */
        EncodedMessage poll() {
            while (cursor < buf.getLong(ShmRing.OFF_WRITE_POS)) {
                int at = ShmRing.HEADER_BYTES + (int) (cursor % cap);
                int length = buf.getInt(at);
                int kind = buf.getInt(at + 4);
                if (kind == ShmRing.KIND_WRAP) {
                    cursor += cap - cursor % cap;
                    continue;
                }
                assertThat(kind).isEqualTo(ShmRing.KIND_MESSAGE);
                byte[] blob = new byte[length];
                buf.get(at + ShmRing.RECORD_HEADER_BYTES, blob);
                cursor += ShmRing.RECORD_HEADER_BYTES + ((length + 7) & ~7);
                return new EncodedMessage(buf.getInt(at + 8), buf.getInt(at + 12), buf.getInt(at + 16), blob);
            }
            return null;
        }

        void releaseAll(long messages) {
            buf.putLong(ShmRing.OFF_READ, buf.getLong(ShmRing.OFF_READ) + messages);
            buf.putLong(ShmRing.OFF_READ_POS, cursor);
        }

        int state() {
            return buf.getInt(ShmRing.OFF_STATE);
        }

        @Override
        public void close() throws IOException {
            ch.close();
        }
    }

    static byte[] blob(int seed, int length) {
        byte[] b = new byte[length];
        for (int i = 0; i < length; i++) {
            b[i] = (byte) (seed * 31 + i);
        }
        return b;
    }

    @Test
    void headerDescribesTheRingAndMessagesArriveInOrderAcrossWraps() throws Exception {
        Path file = dir.resolve("r-1.ring");
        try (ShmRing ring = ShmRing.create(file, CAP, 1, 3); ByteReader reader = new ByteReader(file)) {
            assertThat(reader.buf.getLong(0)).isEqualTo(ShmRing.MAGIC);
            assertThat(reader.buf.getInt(ShmRing.OFF_VERSION)).isEqualTo(1);
            assertThat(reader.buf.getInt(ShmRing.OFF_INDEX)).isEqualTo(1);
            assertThat(reader.buf.getInt(ShmRing.OFF_NUM_RINGS)).isEqualTo(3);
            assertThat(reader.buf.getLong(ShmRing.OFF_WRITER_PID)).isEqualTo(ProcessHandle.current().pid());
            assertThat(Files.size(file)).isEqualTo(ShmRing.HEADER_BYTES + CAP);
            List<EncodedMessage> sent = new ArrayList<>();
            List<EncodedMessage> got = new ArrayList<>();
            for (int i = 0; i < 400; i++) {
                EncodedMessage s = new EncodedMessage(i / 100, i % 100, 100, blob(i, 1 + (i * 7919) % 9000));
                ring.write(s); // never blocks: the reader below drains after every write
                sent.add(s);
                EncodedMessage r = reader.poll();
                got.add(r);
                reader.releaseAll(1);
                assertThat(ring.qsize()).isZero();
                assertThat(ring.bytesUsed()).isZero();
            }
            assertThat(got).isEqualTo(sent);
            assertThat(reader.buf.getLong(ShmRing.OFF_WRITE_POS)).isGreaterThan(10L * CAP); // wrapped many times
            assertThat(ring.written()).isEqualTo(400);
        }
    }

    @Test
    void aWriterForTwoRanksPutsEachBatchInItsRanksRingOnly() throws Exception {
        ShmSinkOptions options = new ShmSinkOptions(dir.toString(), "ranked", CAP).withTrainers(2);
        ShmChannelWriter writer = new ShmChannelWriter(options, 1, 3);
        Path rank0 = dir.resolve("ranked-1-rank0.ring");
        Path rank1 = dir.resolve("ranked-1-rank1.ring");
        assertThat(options.ringPath(1, 1)).isEqualTo(rank1);
        assertThat(dir.resolve("ranked-1.ring")).doesNotExist(); // no ring for a reader of everything
        try (ByteReader r0 = new ByteReader(rank0); ByteReader r1 = new ByteReader(rank1)) {
            for (ByteReader r : List.of(r0, r1)) {
                assertThat(r.buf.getInt(ShmRing.OFF_INDEX)).isEqualTo(1);
                assertThat(r.buf.getInt(ShmRing.OFF_NUM_RINGS)).isEqualTo(3);
                assertThat(r.buf.getInt(ShmRing.OFF_TRAINERS)).isEqualTo(2);
            }
            assertThat(r0.buf.getInt(ShmRing.OFF_RANK)).isZero();
            assertThat(r1.buf.getInt(ShmRing.OFF_RANK)).isEqualTo(1);
            for (int b = 0; b < 9; b++) {
                writer.write(new EncodedMessage(0, b, 9, blob(b, 100)), null);
            }
            List<Integer> share0 = new ArrayList<>();
            List<Integer> share1 = new ArrayList<>();
            for (EncodedMessage m = r0.poll(); m != null; m = r0.poll()) {
                share0.add(m.batchId);
                assertThat(m.payload).isEqualTo(blob(m.batchId, 100));
            }
            for (EncodedMessage m = r1.poll(); m != null; m = r1.poll()) {
                share1.add(m.batchId);
            }
            assertThat(share0).containsExactly(0, 2, 4, 6, 8);
            assertThat(share1).containsExactly(1, 3, 5, 7);
            r0.releaseAll(5);
            r1.releaseAll(4);
            writer.flush(true); // every ring ended and drained
            assertThat(r0.state()).isEqualTo(ShmRing.STATE_ENDED);
            assertThat(r1.state()).isEqualTo(ShmRing.STATE_ENDED);
        } finally {
            writer.close();
        }
        assertThat(rank0).doesNotExist();
        assertThat(rank1).doesNotExist();
    }

    @Test
    void fullRingBlocksTheWriterUntilTheReaderReleases() throws Exception {
        Path file = dir.resolve("r-0.ring");
        try (ShmRing ring = ShmRing.create(file, CAP, 0, 1); ByteReader reader = new ByteReader(file)) {
            byte[] b = blob(1, 20_000); // 20,024-byte records: three fit in 64 KiB
            for (int i = 0; i < 3; i++) {
                ring.write(new EncodedMessage(0, i, 4, b));
            }
            assertThat(ring.qsize()).isEqualTo(3);
            assertThat(ring.bytesUsed()).isEqualTo(3 * 20_024L);
            CompletableFuture<Void> fourth = new CompletableFuture<>();
            Thread writer = new Thread(() -> {
                try {
                    ring.write(new EncodedMessage(0, 3, 4, b));
                    fourth.complete(null);
                } catch (InterruptedException e) {
                    fourth.completeExceptionally(e);
                }
            }, "fourth-writer");
            writer.start();
            // Parked (not spinning) in write: it looked for room, found none, and backs off.
            Waits.untilState("the writer parked for room", Duration.ofSeconds(10), writer, Thread.State.TIMED_WAITING);
            assertThat(fourth).isNotDone(); // back-pressure: no room
            long used = ring.bytesUsed(); // the three records and the wrap to the ring's start
            assertThat(reader.poll().batchId).isEqualTo(0);
            // Room is what the reader released, not what it read: polling frees nothing.
            assertThat(ring.bytesUsed()).isEqualTo(used);
            assertThat(ring.read()).isZero();
            assertThat(fourth).isNotDone(); // read but not released yet: still no room
            reader.releaseAll(1);
            fourth.get(10, TimeUnit.SECONDS);
            assertThat(ring.qsize()).isEqualTo(3);
            List<Integer> rest = new ArrayList<>();
            for (EncodedMessage s; (s = reader.poll()) != null; ) {
                rest.add(s.batchId);
                assertThat(s.payload).isEqualTo(b);
            }
            assertThat(rest).containsExactly(1, 2, 3);
            reader.releaseAll(3);
            assertThat(ring.qsize()).isZero();
            assertThat(ring.bytesUsed()).isZero();
        }
    }

    @Test
    void endFlagDrainAndCleanup() throws Exception {
        Path file = dir.resolve("r-0.ring");
        ShmRing ring = ShmRing.create(file, CAP, 0, 1);
        try (ByteReader reader = new ByteReader(file)) {
            ring.write(new EncodedMessage(0, 0, 1, blob(0, 100)));
            ring.finish();
            assertThat(reader.state()).isEqualTo(ShmRing.STATE_ENDED);
            assertThatThrownBy(() -> ring.write(new EncodedMessage(0, 1, 1, blob(0, 1)))).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("ended");
            assertThat(ring.awaitDrained(TimeUnit.MILLISECONDS.toNanos(100))).isFalse();
            CompletableFuture<Boolean> drained = CompletableFuture.supplyAsync(() -> {
                try {
                    return ring.awaitDrained(-1);
                } catch (InterruptedException e) {
                    throw new RuntimeException(e);
                }
            });
            assertThat(reader.poll().payload).isEqualTo(blob(0, 100));
            reader.releaseAll(1);
            assertThat(drained.get(10, TimeUnit.SECONDS)).isTrue();
            ring.close();
            assertThat(file).doesNotExist();
            assertThat(reader.state()).isEqualTo(ShmRing.STATE_ENDED); // the reader's mapping outlives the file
        }
    }

    @Test
    void closingAnUnfinishedRingMarksItAbortedAndDeletesIt() throws Exception {
        Path file = dir.resolve("r-0.ring");
        ShmRing ring = ShmRing.create(file, CAP, 0, 1);
        try (ByteReader reader = new ByteReader(file)) {
            ring.write(new EncodedMessage(0, 0, 1, blob(0, 10)));
            ring.close();
            assertThat(reader.state()).isEqualTo(ShmRing.STATE_ABORTED);
            assertThat(file).doesNotExist();
        }
        assertThat(Files.list(dir).toList()).isEmpty(); // no temporary file left either
    }

    @Test
    void closeDoesNotDeleteANewerRingAtTheSamePath() throws Exception {
        Path file = dir.resolve("r-0.ring");
        ShmRing old = ShmRing.create(file, CAP, 0, 1);
        try (ShmRing fresh = ShmRing.create(file, CAP, 0, 1)) { // same process: a restarted subtask replaces it
            old.close();
            assertThat(file).exists();
            try (ByteReader reader = new ByteReader(file)) {
                assertThat(reader.state()).isEqualTo(ShmRing.STATE_OPEN);
            }
        }
        assertThat(file).doesNotExist();
    }

    @Test
    void aRingOfAnotherLiveProcessIsNotReplaced() throws Exception {
        Path file = dir.resolve("r-0.ring");
        Process other = new ProcessBuilder("sleep", "30").start();
        try {
            try (ShmRing ring = ShmRing.create(file, CAP, 0, 1)) {
                // pretend the file belongs to the other (live) process
                try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
                    java.nio.ByteBuffer pid = java.nio.ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(0, other.pid());
                    ch.write(pid, ShmRing.OFF_WRITER_PID);
                }
                assertThatThrownBy(() -> ShmRing.create(file, CAP, 0, 1)).isInstanceOf(IOException.class)
                        .hasMessageContaining("in use by the running process " + other.pid())
                        .hasMessageContaining("fanout.channel.shm-name");
            }
        } finally {
            other.destroy();
        }
        other.waitFor();
        // the process is gone: its leftover ring is replaced
        Files.write(file, new byte[0]);
        try (ShmRing ring = ShmRing.create(file, CAP, 0, 1)) {
            assertThat(Files.size(file)).isEqualTo(ShmRing.HEADER_BYTES + CAP);
        }
    }

    @Test
    void oversizedMessagesAndBadOptionsAreRejectedNamingTheOption() throws Exception {
        try (ShmRing ring = ShmRing.create(dir.resolve("r-0.ring"), CAP, 0, 1)) {
            assertThatThrownBy(() -> ring.write(new EncodedMessage(2, 5, 9, new byte[CAP])))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("epoch 2 batch 5").hasMessageContaining("fanout.channel.shm-bytes");
        }
        assertThatThrownBy(() -> new ShmSinkOptions("/dev/shm", "x", 1000)).hasMessageContaining("fanout.channel.shm-bytes");
        assertThatThrownBy(() -> new ShmSinkOptions("/dev/shm", "a/b", CAP)).hasMessageContaining("fanout.channel.shm-name")
                .hasMessageContaining("a/b");
        assertThatThrownBy(() -> new ShmSinkOptions(" ", "a", CAP)).hasMessageContaining("fanout.channel.shm-dir");
        org.apache.flink.configuration.Configuration conf = new org.apache.flink.configuration.Configuration();
        conf.setString("fanout.channel.shm-dir", dir.toString());
        conf.setString("fanout.channel.shm-name", "job7");
        conf.setString("fanout.channel.shm-bytes", "1mb");
        ShmSinkOptions o = ShmSinkOptions.fromConfiguration(conf);
        assertThat(o.ringPath(2)).isEqualTo(dir.resolve("job7-2.ring"));
        assertThat(o.ringBytes()).isEqualTo(1 << 20);
        assertThat(ShmOptions.all()).extracting(opt -> opt.key())
                .containsExactly("fanout.channel.shm", "fanout.channel.shm-dir", "fanout.channel.shm-name", "fanout.channel.shm-bytes");
        assertThat(Arrays.asList(ShmOptions.SHM.defaultValue(), ShmOptions.SHM_DIR.defaultValue())).containsExactly(false, "/dev/shm");
    }
}
