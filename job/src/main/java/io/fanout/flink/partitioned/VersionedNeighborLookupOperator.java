package io.fanout.flink.partitioned;

import io.fanout.sampling.partitioned.NeighborPicks;

/**
 * {@link NeighborLookupOperator} over a graph that changes while sampling continues ({@link
 * VersionedAdjacencyOperator}): a hop's request group, at its batch's graph version {@code v}, gets each node's
 * picks from the node's list as it was at {@code v}.
 */
public class VersionedNeighborLookupOperator extends VersionedAdjacencyOperator<RequestGroup, AnswerGroup> {
    private static final long serialVersionUID = 1L;

    /** Accumulator: deletions of an edge the graph did not have (counted by hop 1's lookup only). */
    public static final String MISSING_DELETES = VersionedAdjacencyOperator.MISSING_DELETES;

    private final int fanout;
    private final boolean replace;
    private final long seed;

    /**
     * @param fanout this hop's fanout ({@code -1} = all)
     * @param countMissing count and log deletions of missing edges (one lookup of the job does)
     * @param compactAfterLoad compact the loaded edges once the load has ended ({@link LoadCompaction})
     */
    public VersionedNeighborLookupOperator(int fanout, boolean replace, long seed, int bucketSize, boolean countMissing,
            boolean compactAfterLoad) {
        super(bucketSize, countMissing, RequestGroup.class, compactAfterLoad);
        this.fanout = fanout;
        this.replace = replace;
        this.seed = seed;
    }

    @Override
    protected long versionOf(RequestGroup request) {
        return request.version;
    }

    /** Answers every node of the group at its version, each under its own key, as one record. */
    @Override
    protected void answer(RequestGroup request) throws Exception {
        output.collect(new org.apache.flink.streaming.runtime.streamrecord.StreamRecord<>(
                RequestRouting.answerEach(request, (index, node) -> {
                    ListAt list = listAt(node, request.version);
                    int[] picks = NeighborPicks.positions(seed, request.epoch, request.batchId, request.hop, node,
                            list.degree(), fanout, replace);
                    return list.gather(picks);
                })));
    }
}
