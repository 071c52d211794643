package io.fanout.batch;

import io.fanout.random.SplitMix64;
import java.io.Serializable;

/**
 * Which seeds go into which batch of which epoch: the loader options {@code batch_size},
 * {@code shuffle}, {@code drop_last}, {@code epochs} and {@code seed} applied to a {@link SeedSet}, shared among
 * {@code trainers} data-parallel trainers, from epoch {@code startEpoch} on.
 *
 * <p>A pure function of its options: any worker can compute batch {@code (epoch, batchId)} on its
 * own, so a restored or rescaled job produces the same batches. With shuffle, each epoch is the
 * {@link SeedPermutation} keyed by {@code SplitMix64.seed(seed, epoch, SHUFFLE_TAG)} (no array of the
 * epoch's order is ever built, so neither the JobManager nor a reader holds one); without it, batches
 * follow seed order. Every epoch has the same {@link #numBatches()}: {@code n / batchSize},
 * plus one for the remainder unless {@code dropLast}.
 *
 * <p>With {@code trainers} T &gt; 1, batch {@code b} goes to rank {@code b mod T} and every epoch's count is a
 * multiple of T, so every rank gets the same number of steps (a rank with one step fewer would hang the others in
 * their all-reduce). Without {@code dropLast} the count is rounded up, as torch's {@code DistributedSampler} pads:
 * the {@link #paddedBatches()} extra batches hold full batches taken again from the start of the epoch's order
 * (padding batch {@code j} holds order slots {@code j*s .. j*s+s-1} modulo n, {@code s = min(batchSize, n)}); with
 * {@code dropLast} it is rounded down by dropping whole trailing batches. A job that starts at epoch {@code E}
 * ({@code startEpoch}) emits epochs {@code E..epochs-1} exactly as the full run does: batches depend only on
 * the options and the epoch, never on the epochs before.
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
    private final int trainers;
    private final int startEpoch;
    /** Batches per epoch, padding included: a multiple of {@link #trainers}. */
    private final int numBatches;
    /** Batches per epoch that hold the epoch's order once ({@code numBatches} minus the padding). */
    private final int realBatches;
    /** Seeds of a padding batch: a full batch, or every seed when there are fewer. */
    private final int paddedLength;

    /** One trainer, every epoch: the loader options only. */
    public BatchPlan(SeedSet seeds, int batchSize, boolean shuffle, boolean dropLast, int epochs, long seed) {
        this(seeds, batchSize, shuffle, dropLast, epochs, seed, 1, 0);
    }

    /**
     * @param trainers data-parallel trainers sharing each epoch's batches (>= 1)
     * @param startEpoch the first epoch a job emits (0 <= startEpoch < epochs)
     * @throws IllegalArgumentException naming the option ({@code batch-size}, {@code epochs},
     *     {@code drop-last}, {@code trainers}, {@code start-epoch}) if the options are invalid or would give an
     *     epoch with no batch
     */
    public BatchPlan(SeedSet seeds, int batchSize, boolean shuffle, boolean dropLast, int epochs, long seed,
            int trainers, int startEpoch) {
        if (seeds == null) {
            throw new IllegalArgumentException("seeds must be given");
        }
        if (batchSize < 1) {
            throw new IllegalArgumentException("batch-size must be >= 1, got " + batchSize);
        }
        if (epochs < 1) {
            throw new IllegalArgumentException("epochs must be >= 1, got " + epochs);
        }
        if (trainers < 1) {
            throw new IllegalArgumentException("trainers must be >= 1, got " + trainers);
        }
        if (startEpoch < 0 || startEpoch >= epochs) {
            throw new IllegalArgumentException("start-epoch must be in 0.." + (epochs - 1) + " (epochs " + epochs
                    + ", numbered from 0), got " + startEpoch);
        }
        int n = seeds.size();
        int full = n / batchSize;
        int batches = full + (!dropLast && n % batchSize != 0 ? 1 : 0);
        if (batches == 0) {
            // A job that emits nothing is surely a mistake, not a request.
            throw new IllegalArgumentException("batch-size " + batchSize + " is larger than the " + n
                    + " seeds and drop-last is set, so every epoch would be empty: lower batch-size or unset drop-last");
        }
        int real = batches;
        if (dropLast) {
            real = batches = batches / trainers * trainers;
            if (batches == 0) {
                throw new IllegalArgumentException("drop-last with trainers " + trainers + " leaves no batch: the " + n
                        + " seeds make " + full + " full batches of batch-size " + batchSize + ", fewer than one per"
                        + " trainer; lower batch-size or trainers, or unset drop-last (padding instead)");
            }
        } else {
            batches = Math.toIntExact(((long) batches + trainers - 1) / trainers * trainers);
        }
        this.seeds = seeds;
        this.batchSize = batchSize;
        this.shuffle = shuffle;
        this.dropLast = dropLast;
        this.epochs = epochs;
        this.seed = seed;
        this.trainers = trainers;
        this.startEpoch = startEpoch;
        this.numBatches = batches;
        this.realBatches = real;
        this.paddedLength = Math.min(batchSize, n);
    }

    /**
     * A short hash (16 hex digits) of everything that decides the batches: the seeds (and their times), batch
     * size, shuffle, drop-last, epochs, seed, trainers and start epoch. Two plans with the same fingerprint hand out
     * the same batches; jobs use it in operator uids so a savepoint of another plan's source is not restored into
     * this one.
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
        if (trainers != 1 || startEpoch != 0) {
            // Only when set: a one-trainer plan from epoch 0 keeps the fingerprint (and uids) it had before.
            put.accept(trainers);
            put.accept(startEpoch);
        }
        sha.update(buf.flip());
        return io.fanout.digest.Sha256.hex(sha, 16);
    }

    /** Batches in every epoch, padding batches included ({@code #META.num_batches}). */
    public int numBatches() {
        return numBatches;
    }

    /** Batches of every epoch that hold its order once; the rest, from this id on, are padding. */
    public int realBatches() {
        return realBatches;
    }

    /** Padding batches at the end of every epoch (0 with one trainer, or with drop-last). */
    public int paddedBatches() {
        return numBatches - realBatches;
    }

    /** True when batch {@code batchId} is padding ({@code #META.padded}): seeds again from the start of the order. */
    public boolean isPadded(int batchId) {
        return batchId >= realBatches;
    }

    /** What the sampling operators need to tag messages with their trainer share. */
    public TrainerShares shares() {
        return TrainerShares.of(this);
    }

    /** Data-parallel trainers sharing every epoch's batches. */
    public int trainers() {
        return trainers;
    }

    /** The rank (0..trainers-1) whose batch {@code batchId} is: {@code batchId mod trainers}. */
    public int rankOf(int batchId) {
        checkBatch(batchId);
        return batchId % trainers;
    }

    /** Number of epochs, counted from 0 (a job starting later still numbers them so). */
    public int epochs() {
        return epochs;
    }

    /** The first epoch a job emits; epochs before it are the ones a restarted trainer already had. */
    public int startEpoch() {
        return startEpoch;
    }

    /** Batches over the epochs a job emits ({@link #startEpoch()} to the last). */
    public long totalBatches() {
        return (long) numBatches * (epochs - startEpoch);
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

    /** Seeds in batch {@code batchId} of every epoch (the last real one may be short; padding batches are full). */
    public int batchLength(int batchId) {
        checkBatch(batchId);
        return isPadded(batchId) ? paddedLength : batchEnd(batchId) - batchStart(batchId);
    }

    /**
     * The slot of the epoch's order that place {@code index} of batch {@code batchId} holds: a real batch's places
     * are consecutive slots; a padding batch's wrap around to the start of the order.
     */
    long slotAt(int batchId, int index) {
        if (!isPadded(batchId)) {
            return (long) batchId * batchSize + index;
        }
        return ((long) (batchId - realBatches) * paddedLength + index) % seeds.size();
    }

    /** Receives one place of a seed in an epoch: place {@code index} of batch {@code batchId}. */
    @FunctionalInterface
    public interface PlaceConsumer {
        void accept(int batchId, int index);
    }

    /**
     * Every place that order slot {@code slot} fills in an epoch: its own batch (unless drop-last dropped it), then
     * each padding batch that takes it again, in batch order. The distributed seed reader, which meets each seed
     * once, places it with this.
     */
    public void forEachPlace(long slot, PlaceConsumer places) {
        long own = slot / batchSize;
        if (own < realBatches) {
            places.accept((int) own, (int) (slot % batchSize));
        }
        // Padding is one stream of paddedLength-seed batches over the order repeated: slot s sits at s, s+n, ...
        long paddingSlots = (long) paddedBatches() * paddedLength;
        for (long t = slot; t < paddingSlots; t += seeds.size()) {
            places.accept(realBatches + (int) (t / paddedLength), (int) (t % paddedLength));
        }
    }

    /** Start (inclusive) of a real batch in the epoch's seed order. */
    int batchStart(int batchId) {
        checkBatch(batchId);
        return batchId * batchSize;
    }

    /** End (exclusive) of a real batch in the epoch's seed order; the last may be short. */
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
                + ", epochs=" + epochs + ", seed=" + seed + (trainers > 1 ? ", trainers=" + trainers : "")
                + (startEpoch > 0 ? ", start-epoch=" + startEpoch : "") + ", " + numBatches + " batches/epoch"
                + (paddedBatches() > 0 ? " (" + paddedBatches() + " padding)" : "") + "}";
    }
}
