package io.fanout.sampling.link;

import java.util.Arrays;
import java.util.Objects;

/**
 * One link batch's pairs, as PyG's {@code edge_sample} lays them out: the positives (the seed edges at the batch's
 * positions), then the negatives: binary ones appended to both ends ({@code ceil(P x amount)} pairs), triplet ones
 * appended to the destinations only ({@code amount} per positive, row-major [P, amount]).
 */
public final class LinkBatch {
    /** Number of positives P. */
    public final int positives;
    /** Negatives per positive (triplet), or the rounded-down amount (binary). */
    public final int perPositive;
    /** Source node indices: the P positives' sources, then the binary negatives' sources. */
    public final int[] src;
    /** Destination node indices: the positives' destinations, then the negatives' destinations. */
    public final int[] dst;

    private LinkBatch(int positives, int perPositive, int[] src, int[] dst) {
        this.positives = positives;
        this.perPositive = perPositive;
        this.src = src;
        this.dst = dst;
    }

    /**
     * The pairs of the batch whose seeds are {@code positions} into {@code links}, with negatives drawn by
     * {@code sampler} (null for {@link NegativeSampling#NONE}) from the batch's own stream.
     */
    public static LinkBatch of(LinkSeeds links, int[] positions, NegativeSampling mode, double amount,
            NegativeSampler sampler, long seed, int epoch, int batchId) {
        Objects.requireNonNull(links, "links");
        int p = positions.length;
        int[] src = new int[p];
        int[] dst = new int[p];
        for (int i = 0; i < p; i++) {
            src[i] = links.src(positions[i]);
            dst[i] = links.dst(positions[i]);
        }
        int perPositive = (int) amount;
        if (mode == NegativeSampling.BINARY) {
            int[][] neg = sampler.binary((int) Math.ceil(p * amount), seed, epoch, batchId);
            return new LinkBatch(p, perPositive, concat(src, neg[0]), concat(dst, neg[1]));
        }
        if (mode == NegativeSampling.TRIPLET) {
            return new LinkBatch(p, perPositive, src, concat(dst, sampler.triplet(src, perPositive, seed, epoch,
                    batchId)));
        }
        return new LinkBatch(p, perPositive, src, dst);
    }

    /**
     * Where triplet negative {@code j} (row-major: negative {@code j % k} of positive {@code j / k}, {@code k}
     * negatives per positive) goes among the negatives laid out negative-major ({@code kk * P + i}), as PyG lays out a
     * disjoint triplet batch's trees, so that tree mod P is the positive's index.
     */
    public static int negativeMajor(int j, int positives, int perPositive) {
        return (j % perPositive) * positives + j / perPositive;
    }

    /** {@code a} then {@code b}. */
    public static int[] concat(int[] a, int[] b) {
        int[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}
