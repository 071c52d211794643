package io.fanout.flink.partitioned;

import io.fanout.sampling.ppr.FetchedList;
import it.unimi.dsi.fastutil.longs.LongArrayList;
import it.unimi.dsi.fastutil.longs.LongOpenHashSet;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.util.OutputTag;

/**
 * {@link KeyedLookups#pprLists} over a graph that changes while sampling continues
 * ({@link VersionedAdjacencyOperator}): each requested node's list as a push reads it at the batch's graph version
 * (its degree then, and the positions {@link FetchedList#readPositions} picks at that degree). The listed
 * neighbours' degrees at that version live under their own keys, so the group goes back with
 * {@link PprAnswerGroup#degreesFollow} and the distinct neighbours go out on {@link #DEGREE_REQUESTS} to this
 * round's {@link VersionedPprDegreeOperator}, grouped per subtask.
 */
public class VersionedPprFetchOperator extends VersionedAdjacencyOperator<PprFetchRequest, PprAnswerGroup> {
    private static final long serialVersionUID = 1L;

    /** Degree requests for the neighbours of the lists answered. */
    public static final OutputTag<PprFetchRequest> DEGREE_REQUESTS = new OutputTag<>("ppr-degree-requests",
            TypeInformation.of(PprFetchRequest.class));

    private final int maxNeighbors;
    private final long seed;

    /**
     * @param maxNeighbors neighbours a push reads per node (-1 = all)
     * @param seed the job seed (keys the capped sample, as in the memory store)
     * @param countMissing count and log deletions of missing edges (one operator of the job does)
     */
    public VersionedPprFetchOperator(int maxNeighbors, long seed, int bucketSize, boolean countMissing) {
        super(bucketSize, countMissing, PprFetchRequest.class);
        this.maxNeighbors = maxNeighbors;
        this.seed = seed;
    }

    @Override
    protected long versionOf(PprFetchRequest request) {
        return request.version;
    }

    @Override
    protected void answer(PprFetchRequest request) throws Exception {
        int n = request.nodes.length;
        int[] degrees = new int[n];
        int[] ends = new int[n];
        LongArrayList neighbors = new LongArrayList();
        LongOpenHashSet asked = new LongOpenHashSet(); // distinct neighbours, in any order (split per subtask)
        for (int i = 0; i < n; i++) {
            long node = request.nodes[i];
            ListAt list = listAt(node, request.version);
            int d = list.degree();
            long[] read = list.gather(FetchedList.readPositions(node, d, maxNeighbors, seed));
            degrees[i] = d;
            neighbors.addElements(neighbors.size(), read);
            for (long w : read) {
                asked.add(w);
            }
            ends[i] = neighbors.size();
        }
        PprAnswerGroup lists = new PprAnswerGroup(request.batchKey, request.nodes, degrees, ends,
                neighbors.toLongArray(), new int[neighbors.size()]);
        lists.degreesFollow = true;
        lists.degreeRequests = asked.size();
        output.collect(new StreamRecord<>(lists));
        if (!asked.isEmpty()) {
            PprFetchRequest.send(request.batchKey, request.version, asked.toLongArray(),
                    getRuntimeContext().getTaskInfo(), r -> output.collect(DEGREE_REQUESTS, new StreamRecord<>(r)));
        }
    }
}
