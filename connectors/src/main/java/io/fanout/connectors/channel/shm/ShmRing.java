package io.fanout.connectors.channel.shm;

import io.fanout.connectors.channel.options.ShmOptions;
import io.fanout.connectors.channel.options.ShmSinkOptions;
import io.fanout.connectors.message.EncodedMessage;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.concurrent.locks.LockSupport;

/**
 * The writing end of a shared-memory ring: one memory-mapped file (under /dev/shm by default) that
 * one producer (this object) fills with messages and one consumer process on the same host (the
 * Python {@code fanout_client.shm.ShmRingReader}) reads in place. Layout and memory-ordering rules:
 * docs/shm-ring.md.
 *
 * <p>Bounded by bytes: {@link #write} blocks (spin, then park with back-off) while the ring has no
 * room, which is the back-pressure of the shared-memory channel. Not thread-safe: one writing thread.
 */
public final class ShmRing implements AutoCloseable {
    /** "FANORING" in ASCII, read as a little-endian u64. */
    public static final long MAGIC = 0x474E49524F4E4146L;
    public static final int VERSION = 1;
    /** The header page before the data area. */
    public static final int HEADER_BYTES = 4096;
    /** Bytes before each record's blob: length, kind, epoch, batch id, number of batches, reserved. */
    public static final int RECORD_HEADER_BYTES = 24;
    /** Record kind: a message. */
    public static final int KIND_MESSAGE = 1;
    /** Record kind: nothing more before the end of the data area; continue at its start. */
    public static final int KIND_WRAP = 2;
    /** Header state: the writer is (or was, if its process died) writing. */
    public static final int STATE_OPEN = 0;
    /** Header state: every message is written; the reader ends after the last one. */
    public static final int STATE_ENDED = 1;
    /** Header state: the writer was cancelled or failed; messages after the read position are lost. */
    public static final int STATE_ABORTED = 2;
    /** Smallest and largest data area accepted. */
    public static final long MIN_CAPACITY = ShmSinkOptions.MIN_RING_BYTES;
    public static final long MAX_CAPACITY = ShmSinkOptions.MAX_RING_BYTES;

    // Header offsets (bytes, little-endian). Writer words and reader words sit on separate cache lines.
    static final int OFF_MAGIC = 0;
    static final int OFF_VERSION = 8;
    static final int OFF_HEADER_BYTES = 12;
    static final int OFF_CAPACITY = 16;
    static final int OFF_INDEX = 24;
    static final int OFF_NUM_RINGS = 28;
    static final int OFF_WRITER_PID = 32;
    static final int OFF_STATE = 40;
    /** The data-parallel rank whose share the ring holds, and the number of ranks (0: one reader takes everything). */
    static final int OFF_RANK = 44;
    static final int OFF_TRAINERS = 48;
    static final int OFF_WRITE_POS = 64;
    static final int OFF_WRITTEN = 72;
    static final int OFF_READ_POS = 128;
    static final int OFF_READ = 136;

    private static final VarHandle LONG = MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle INT = MethodHandles.byteBufferViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);

    private final Path path;
    private final long capacity;
    private final int index;
    private final int numRings;
    private final int rank;
    private final int trainers;
    private final MappedByteBuffer buf;
    /** Bytes ever written (the writer's own copy of the write position). */
    private long writePos;
    private long written;
    private boolean ended;
    private volatile boolean closed;
    /** Identity (inode) of our file, so close() never deletes a newer ring created at the same path. */
    private Object fileKey;

    private ShmRing(Path path, long capacity, int index, int numRings, int rank, int trainers, MappedByteBuffer buf) {
        this.path = path;
        this.capacity = capacity;
        this.index = index;
        this.numRings = numRings;
        this.rank = rank;
        this.trainers = trainers;
        this.buf = buf;
    }

    /**
     * Creates the ring file {@code path} with a data area of {@code capacity} bytes: written under a
     * temporary name and renamed into place once its header is complete, so a reader never sees a
     * half-made ring. A leftover file of a dead process (or of this process) is replaced; a file whose
     * writer process is alive and still open is an error.
     *
     * @param index this ring's index (sink subtask); numRings the number of rings of the channel
     */
    public static ShmRing create(Path path, long capacity, int index, int numRings) throws IOException {
        return create(path, capacity, index, numRings, 0, 0);
    }

    /**
     * As {@link #create(Path, long, int, int)}, for the share of data-parallel rank {@code rank} of
     * {@code trainers} (written into the header, so a reader with another world size is refused);
     * {@code trainers} 0: an unranked ring, one reader takes everything.
     */
    public static ShmRing create(Path path, long capacity, int index, int numRings, int rank, int trainers) throws IOException {
        if (trainers < 0 || (trainers == 0 ? rank != 0 : rank < 0 || rank >= trainers)) {
            throw new IllegalArgumentException("rank " + rank + " of " + trainers + " trainers");
        }
        if (capacity < MIN_CAPACITY || capacity > MAX_CAPACITY || capacity % 8 != 0) {
            throw new IllegalArgumentException("invalid value for option " + ShmOptions.SHM_BYTES.key() + ": " + capacity
                    + " bytes (expected a multiple of 8 between " + MIN_CAPACITY + " bytes and 1 GiB)");
        }
        if (index < 0 || index >= numRings) {
            throw new IllegalArgumentException("ring index " + index + " not in [0, " + numRings + ")");
        }
        Path dir = path.toAbsolutePath().getParent();
        Files.createDirectories(dir);
        refuseLiveRing(path);
        long usable = Files.getFileStore(dir).getUsableSpace();
        if (usable < HEADER_BYTES + capacity) {
            throw new IOException("cannot create shared-memory ring " + path + " of " + capacity + " bytes: only " + usable
                    + " bytes free in " + dir + " (option " + ShmOptions.SHM_DIR.key() + " / " + ShmOptions.SHM_BYTES.key() + ")");
        }
        long pid = ProcessHandle.current().pid();
        Path tmp = dir.resolve("." + path.getFileName() + ".tmp-" + pid);
        MappedByteBuffer buf;
        try (RandomAccessFile file = new RandomAccessFile(tmp.toFile(), "rw")) {
            file.setLength(HEADER_BYTES + capacity); // sparse: tmpfs pages are allocated as they are touched
            buf = file.getChannel().map(FileChannel.MapMode.READ_WRITE, 0, HEADER_BYTES + capacity);
        } catch (IOException e) {
            Files.deleteIfExists(tmp);
            throw new IOException("cannot create shared-memory ring " + path + " of " + capacity + " bytes (option "
                    + ShmOptions.SHM_DIR.key() + " / " + ShmOptions.SHM_BYTES.key() + "): " + e.getMessage(), e);
        }
        buf.order(ByteOrder.LITTLE_ENDIAN);
        try {
            // Touch every page now: the memory is committed up front (a full tmpfs fails here, not
            // mid-stream) and the writer never pays first-touch page faults while streaming.
            for (int at = HEADER_BYTES; at < HEADER_BYTES + capacity; at += 4096) {
                buf.put(at, (byte) 0);
            }
        } catch (InternalError e) { // SIGBUS: the file system ran out of memory
            Files.deleteIfExists(tmp);
            throw new IOException("cannot allocate shared-memory ring " + path + " of " + capacity + " bytes: " + dir
                    + " is full (option " + ShmOptions.SHM_DIR.key() + " / " + ShmOptions.SHM_BYTES.key() + ")", e);
        }
        buf.putLong(OFF_MAGIC, MAGIC);
        buf.putInt(OFF_VERSION, VERSION);
        buf.putInt(OFF_HEADER_BYTES, HEADER_BYTES);
        buf.putLong(OFF_CAPACITY, capacity);
        buf.putInt(OFF_INDEX, index);
        buf.putInt(OFF_NUM_RINGS, numRings);
        buf.putLong(OFF_WRITER_PID, pid);
        buf.putInt(OFF_RANK, rank);
        buf.putInt(OFF_TRAINERS, trainers);
        INT.setRelease(buf, OFF_STATE, STATE_OPEN);
        try {
            try {
                Files.move(tmp, path, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, path, StandardCopyOption.REPLACE_EXISTING);
            }
        } catch (IOException e) {
            Files.deleteIfExists(tmp);
            throw e;
        }
        ShmRing ring = new ShmRing(path, capacity, index, numRings, rank, trainers, buf);
        ring.fileKey = fileKey(path);
        return ring;
    }

    private static Object fileKey(Path path) {
        try {
            return Files.readAttributes(path, BasicFileAttributes.class).fileKey();
        } catch (IOException e) {
            return null;
        }
    }

    /** Fails if {@code path} is an open ring of another live process (two jobs with the same ring name). */
    private static void refuseLiveRing(Path path) throws IOException {
        long pid;
        int state;
        try (FileChannel ch = FileChannel.open(path)) {
            ByteBuffer head = ByteBuffer.allocate(64).order(ByteOrder.LITTLE_ENDIAN);
            ch.read(head, 0);
            if (head.position() < 64 || head.getLong(OFF_MAGIC) != MAGIC) {
                return; // not a ring: replaced
            }
            pid = head.getLong(OFF_WRITER_PID);
            state = head.getInt(OFF_STATE);
        } catch (NoSuchFileException e) {
            return;
        }
        if (state == STATE_OPEN && pid != ProcessHandle.current().pid() && ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) {
            throw new IOException("shared-memory ring " + path + " is in use by the running process " + pid
                    + "; give this job another " + ShmOptions.SHM_NAME.key() + " or " + ShmOptions.SHM_DIR.key());
        }
    }

    public Path path() {
        return path;
    }

    /** Bytes of the data area. */
    public long capacity() {
        return capacity;
    }

    public int index() {
        return index;
    }

    public int numRings() {
        return numRings;
    }

    /** The rank whose share this ring holds (0 for an unranked ring). */
    public int rank() {
        return rank;
    }

    /** The number of ranks the channel's rings are split into, 0 for an unranked ring. */
    public int trainers() {
        return trainers;
    }

    /** The largest blob one record can hold. */
    public long maxBlobBytes() {
        return capacity - RECORD_HEADER_BYTES;
    }

    /** Messages written and not yet released by the reader (GLT's {@code qsize()}). */
    public long qsize() {
        return written - (long) LONG.getAcquire(buf, OFF_READ);
    }

    /** Bytes of the data area in use: written and not yet released (including wrap padding). */
    public long bytesUsed() {
        return writePos - (long) LONG.getAcquire(buf, OFF_READ_POS);
    }

    /** Messages written so far. */
    public long written() {
        return written;
    }

    /** Messages the reader released so far. */
    public long read() {
        return (long) LONG.getAcquire(buf, OFF_READ);
    }

    /** Copies {@code sample} (owned or borrowed) into the ring, blocking while there is no room. */
    public void write(EncodedMessage sample) throws InterruptedException {
        write(sample.epoch, sample.batchId, sample.numBatches, sample.bytes(), 0, sample.length());
    }

    /**
     * Copies one message into the ring and publishes it, blocking while there is no room.
     *
     * @throws IllegalArgumentException if the blob can never fit (larger than the ring)
     * @throws IllegalStateException if the ring is closed or already ended
     */
    public void write(int epoch, int batchId, int numBatches, byte[] blob, int offset, int length) throws InterruptedException {
        if (closed || ended) {
            throw new IllegalStateException("shared-memory ring " + path + " is " + (closed ? "closed" : "ended"));
        }
        long record = RECORD_HEADER_BYTES + align8(length);
        if (record > capacity) {
            throw new IllegalArgumentException("message epoch " + epoch + " batch " + batchId + " of " + length
                    + " bytes does not fit the shared-memory ring of " + capacity + " bytes; raise option "
                    + ShmOptions.SHM_BYTES.key());
        }
        long toEnd = capacity - writePos % capacity;
        if (toEnd < record) {
            // Not enough contiguous room before the end: a WRAP marker fills it, published on its own
            // so that the marker and the record never need more than the capacity together.
            awaitFree(toEnd);
            int at = HEADER_BYTES + (int) (writePos % capacity);
            buf.putInt(at, 0);
            buf.putInt(at + 4, KIND_WRAP);
            writePos += toEnd;
            LONG.setRelease(buf, OFF_WRITE_POS, writePos);
        }
        awaitFree(record);
        int at = HEADER_BYTES + (int) (writePos % capacity);
        buf.putInt(at, length);
        buf.putInt(at + 4, KIND_MESSAGE);
        buf.putInt(at + 8, epoch);
        buf.putInt(at + 12, batchId);
        buf.putInt(at + 16, numBatches);
        buf.putInt(at + 20, 0);
        buf.put(at + RECORD_HEADER_BYTES, blob, offset, length);
        writePos += record;
        written++;
        buf.putLong(OFF_WRITTEN, written);
        // Release: the record bytes above are visible to a reader before the position that covers them.
        LONG.setRelease(buf, OFF_WRITE_POS, writePos);
    }

    private static long align8(long n) {
        return (n + 7) & ~7L;
    }

    /** Waits until {@code need} bytes are free: spins briefly, then parks with a growing pause (at most 1 ms). */
    private void awaitFree(long need) throws InterruptedException {
        long parkNanos = 1_000;
        int spins = 0;
        while (capacity - (writePos - (long) LONG.getAcquire(buf, OFF_READ_POS)) < need) {
            parkNanos = pause(spins++, parkNanos);
        }
    }

    private long pause(int spins, long parkNanos) throws InterruptedException {
        if (closed) {
            throw new IllegalStateException("shared-memory ring " + path + " was closed");
        }
        if (Thread.interrupted()) {
            throw new InterruptedException("interrupted while waiting for the reader of " + path);
        }
        if (spins < 200) {
            Thread.onSpinWait();
            return parkNanos;
        }
        LockSupport.parkNanos(parkNanos);
        return Math.min(parkNanos * 2, 1_000_000);
    }

    /** Marks the end of the stream: the reader ends its iteration after the last message. */
    public void finish() {
        if (!ended && !closed) {
            ended = true;
            INT.setRelease(buf, OFF_STATE, STATE_ENDED);
        }
    }

    /** True once the reader released every message written. */
    public boolean drained() {
        return (long) LONG.getAcquire(buf, OFF_READ_POS) >= writePos;
    }

    /**
     * Blocks until the reader released every message, or {@code timeoutNanos} passed (negative: no
     * limit); true when drained.
     */
    public boolean awaitDrained(long timeoutNanos) throws InterruptedException {
        long deadline = System.nanoTime() + timeoutNanos;
        long parkNanos = 1_000;
        int spins = 0;
        while (!drained()) {
            if (timeoutNanos >= 0 && System.nanoTime() - deadline > 0) {
                return false;
            }
            parkNanos = pause(spins++, parkNanos);
        }
        return true;
    }

    /**
     * Closes the ring and deletes its file. A ring not {@link #finish() finished} is marked aborted
     * first, so a reader that has it mapped fails instead of waiting forever. Deleting is safe for a
     * reader in the middle of it: the mapping stays valid until the reader unmaps it.
     */
    @Override
    public void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        if (!ended) {
            INT.setRelease(buf, OFF_STATE, STATE_ABORTED);
        }
        Object key = fileKey(path);
        if (key != null && key.equals(fileKey)) {
            Files.deleteIfExists(path);
        }
    }

    @Override
    public String toString() {
        return "ShmRing{" + path + ", " + capacity + " bytes, ring " + index + "/" + numRings + ", written " + written + "}";
    }
}
