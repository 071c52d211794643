package io.fanout.flink.partitioned;

import io.fanout.batch.SeedBatch;

/**
 * A link batch and its negatives (a Flink POJO keyed by {@link #batchKey}): first the candidates drawn for them
 * ({@link NegativeProbeFunction}) while their owners check which are edges, then the negatives picked
 * ({@link NegativeStageFunction}), for {@link LinkStartFunction}.
 */
public class LinkDraw {
    public long batchKey;
    /** The link batch: its seeds are positions of seed edges. */
    public SeedBatch batch;
    /** Negatives to pick: binary {@code ceil(P x amount)}, triplet {@code P x amount}. */
    public int count;
    /** Triplet negatives per positive ({@link #count} / P), or 0 for binary ones. */
    public int tripletAmount;
    /** Binary: the candidate pairs' sources as node ids, in draw order; null once picked, and for triplets. */
    public long[] candidateSrc;
    /** The candidates' destinations as node ids, in draw order; null once picked. */
    public long[] candidateDst;
    /** Triplet: the positives' sources as node ids, by positive; null once picked, and for binary negatives. */
    public long[] sources;
    /** Whether the lookups' lists are keyed by an edge's source (else by its destination). */
    public boolean keyedBySource;
    /**
     * Triplet with lists keyed by source: the keys are the positives' sources and their answers whole lists, so the
     * negatives are drawn against them as the memory store draws them (no candidates ahead, exact draws included).
     */
    public boolean wholeLists;
    /** The distinct keys asked about, in draw order; null once picked. */
    public long[] keys;
    /**
     * Where each keyed end is in {@link #keys}: per candidate, or for triplets keyed by source per positive; null once
     * picked.
     */
    public int[] keyPositions;
    /** The negatives' ends as node ids, once picked (triplet: destinations only, row-major [P, amount]). */
    public long[] negativeSrc;
    public long[] negativeDst;

    public LinkDraw() {}
}
