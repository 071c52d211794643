package io.fanout.flink.partitioned;

import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;

/**
 * The degrees, at a batch's graph version, of the neighbours one PPR fetch round's lists named
 * ({@link VersionedPprFetchOperator#DEGREE_REQUESTS}): the queue threshold {@code alpha * eps * max(deg, 1)} needs
 * them before those neighbours' own lists are fetched. Its own copy of the versioned adjacency
 * ({@link VersionedAdjacencyOperator}): a deletion changes a degree only if the edge was there, which only the list
 * tells. Answers go straight to the round's batches as {@link PprAnswerGroup#degreeAnswer} groups.
 */
public class VersionedPprDegreeOperator extends VersionedAdjacencyOperator<PprFetchRequest, PprAnswerGroup> {
    private static final long serialVersionUID = 1L;

    public VersionedPprDegreeOperator(int bucketSize) {
        super(bucketSize, false, PprFetchRequest.class);
    }

    @Override
    protected long versionOf(PprFetchRequest request) {
        return request.version;
    }

    @Override
    protected void answer(PprFetchRequest request) throws Exception {
        int[] degrees = new int[request.nodes.length];
        for (int i = 0; i < degrees.length; i++) {
            degrees[i] = listAt(request.nodes[i], request.version).degree();
        }
        output.collect(new StreamRecord<>(PprAnswerGroup.degrees(request.batchKey, request.nodes, degrees)));
    }
}
