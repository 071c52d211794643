package io.fanout.batch;

import io.fanout.random.SplitMix64;
import java.io.Serializable;

/**
 * Which seeds go into which batch of which epoch: the loader options {@code batch_size},
 * {@code shuffle}, {@code drop_last}, {@code epochs} and {@code seed} applied to a {@link SeedSet}.
 *
 * <p>A pure function of its options: any worker can compute batch {@code (epoch, batchId)} on its
 * own, so a restored or rescaled job produces the same batches. With shuffle, each epoch is the
 * {@link SeedPermutation} keyed by {@code SplitMix64.seed(seed, epoch, SHUFFLE_TAG)} (no array of the
 * epoch's order is ever built, so neither the JobManager nor a reader holds one); without it, batches
 * follow seed order. Every epoch has the same {@link #numBatches()}: {@code n / batchSize},
 * plus one for the remainder unless {@code dropLast}.
 */
public final class BatchPlan implements Serializable {
    private static final long serialVersionUID = 1L;

    /** Third seed coordinate of the shuffle stream ("SHUFFLE" in ASCII), apart from every sampling stream. */
    public static final long SHUFFLE_TAG = 0x53485546464C45L;

    private final SeedSet seeds;
    private final int batchSize;
    private final boolean shuffle;
    private final boolean dropLast;
    private final int epochs;
    private final long seed;
    private final int numBatches;

    /**
     * @throws IllegalArgumentException naming the option ({@code batch-size}, {@code epochs},
     *     {@code drop-last}) if the options are invalid or would give an epoch with no batch
     */
    public BatchPlan(SeedSet seeds, int batchSize, boolean shuffle, boolean dropLast, int epochs, long seed) {
        if (seeds == null) {
            throw new IllegalArgumentException("seeds must be given");
        }
        if (batchSize < 1) {
            throw new IllegalArgumentException("batch-size must be >= 1, got " + batchSize);
        }
        if (epochs < 1) {
            throw new IllegalArgumentException("epochs must be >= 1, got " + epochs);
        }
        int n = seeds.size();
        int full = n / batchSize;
        int batches = full + (!dropLast && n % batchSize != 0 ? 1 : 0);
        if (batches == 0) {
            // A job that emits nothing is surely a mistake, not a request.
            throw new IllegalArgumentException("batch-size " + batchSize + " is larger than the " + n
                    + " seeds and drop-last is set, so every epoch would be empty: lower batch-size or unset drop-last");
        }
        this.seeds = seeds;
        this.batchSize = batchSize;
        this.shuffle = shuffle;
        this.dropLast = dropLast;
        this.epochs = epochs;
        this.seed = seed;
        this.numBatches = batches;
    }

    /**
     * A short hash (16 hex digits) of everything that decides the batches: the seeds (and their times), batch
     * size, shuffle, drop-last, epochs and seed. Two plans with the same fingerprint hand out the same batches;
     * jobs use it in operator uids so a savepoint of another plan's source is not restored into this one.
     */
    public String fingerprint() {
        java.security.MessageDigest sha = io.fanout.digest.Sha256.create();
        java.nio.ByteBuffer buf = java.nio.ByteBuffer.allocate(8192);
        java.util.function.LongConsumer put = v -> {
            if (buf.remaining() < Long.BYTES) {
                sha.update(buf.flip());
                buf.clear();
            }
            buf.putLong(v);
        };
        put.accept(batchSize);
        put.accept(shuffle ? 1 : 0);
        put.accept(dropLast ? 1 : 0);
        put.accept(epochs);
        put.accept(seed);
        put.accept(seeds.isAllNodes() ? -1 : seeds.isCounted() ? 2 : 1);
        put.accept(seeds.size());
        if (seeds.isCounted()) {
            put.accept(seeds.countedHash());
        } else if (!seeds.isAllNodes()) {
            for (int i = 0; i < seeds.size(); i++) {
                put.accept(seeds.get(i));
            }
        }
        long[] times = seeds.times();
        put.accept(times == null ? -1 : times.length);
        if (times != null) {
            for (long t : times) {
                put.accept(t);
            }
        }
        sha.update(buf.flip());
        return io.fanout.digest.Sha256.hex(sha, 16);
    }

    /** Batches in every epoch. */
    public int numBatches() {
        return numBatches;
    }

    /** Number of epochs. */
    public int epochs() {
        return epochs;
    }

    /** Batches over all epochs. */
    public long totalBatches() {
        return (long) numBatches * epochs;
    }

    public SeedSet seeds() {
        return seeds;
    }

    public int batchSize() {
        return batchSize;
    }

    public boolean shuffle() {
        return shuffle;
    }

    public boolean dropLast() {
        return dropLast;
    }

    /** The job seed the shuffle is derived from. */
    public long seed() {
        return seed;
    }

    /** The seeds of batch {@code batchId} of {@code epoch}, in batch order. */
    public int[] seedsOf(int epoch, int batchId) {
        return order(epoch).seedsOf(batchId);
    }

    /** Batch {@code batchId} of {@code epoch} as the source emits it: its seeds and their input positions. */
    public SeedBatch batch(int epoch, int batchId) {
        return order(epoch).batch(batchId);
    }

    /** The seed order of one epoch (O(1) to build and to keep). */
    public EpochOrder order(int epoch) {
        if (epoch < 0 || epoch >= epochs) {
            throw new IndexOutOfBoundsException("epoch " + epoch + " out of 0.." + (epochs - 1));
        }
        if (!shuffle) {
            return new EpochOrder(this, epoch, null);
        }
        return new EpochOrder(this, epoch, permutation(epoch));
    }

    /**
     * The shuffle of {@code epoch}: slot {@code s} of the epoch's order holds seed position {@code positionAt(s)}
     * (positions, not ids, are permuted: they are the input ids). Only meaningful with {@link #shuffle()}.
     */
    public SeedPermutation permutation(int epoch) {
        return new SeedPermutation(seeds.size(), SplitMix64.seed(seed, epoch, SHUFFLE_TAG));
    }

    /** Seeds in batch {@code batchId} of every epoch (the last may be short). */
    public int batchLength(int batchId) {
        return batchEnd(batchId) - batchStart(batchId);
    }

    /** Start (inclusive) of a batch in the epoch's seed order. */
    int batchStart(int batchId) {
        checkBatch(batchId);
        return batchId * batchSize;
    }

    /** End (exclusive) of a batch in the epoch's seed order; the last batch may be short. */
    int batchEnd(int batchId) {
        return (int) Math.min((long) (batchId + 1) * batchSize, seeds.size());
    }

    private void checkBatch(int batchId) {
        if (batchId < 0 || batchId >= numBatches) {
            throw new IndexOutOfBoundsException("batch " + batchId + " out of 0.." + (numBatches - 1));
        }
    }

    @Override
    public String toString() {
        return "BatchPlan{" + seeds + ", batch-size=" + batchSize + ", shuffle=" + shuffle + ", drop-last=" + dropLast
                + ", epochs=" + epochs + ", seed=" + seed + ", " + numBatches + " batches/epoch}";
    }
}
