package io.fanout.flink.partitioned;

import io.fanout.batch.SeedBatch;

/**
 * A link batch and its binary negatives (a Flink POJO keyed by {@link #batchKey}): first the candidate pairs drawn
 * for them ({@link NegativeProbeFunction}) while their owners check which are edges, then the negatives picked
 * ({@link NegativeStageFunction}), for {@link LinkStartFunction}.
 */
public class LinkDraw {
    public long batchKey;
    /** The link batch: its seeds are positions of seed edges. */
    public SeedBatch batch;
    /** Negatives to pick: {@code ceil(P x amount)}. */
    public int count;
    /** The candidate pairs' ends as node ids, in draw order; null once picked. */
    public long[] candidateSrc;
    public long[] candidateDst;
    /** Whether the lookups' lists are keyed by an edge's source (else by its destination). */
    public boolean keyedBySource;
    /** The distinct keys asked about (the candidates' keyed ends), in draw order; null once picked. */
    public long[] keys;
    /** Each candidate's keyed end as a position in {@link #keys}; null once picked. */
    public int[] keyPositions;
    /** The negatives' ends as node ids, once picked. */
    public long[] negativeSrc;
    public long[] negativeDst;

    public LinkDraw() {}
}
