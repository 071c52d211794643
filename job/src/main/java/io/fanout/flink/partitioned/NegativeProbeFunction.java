package io.fanout.flink.partitioned;

import io.fanout.batch.LocalSeedArray;
import io.fanout.batch.SeedBatch;
import io.fanout.batch.SeedFile;
import io.fanout.sampling.link.NegativeCandidates;
import io.fanout.sampling.link.NegativeSampling;
import it.unimi.dsi.fastutil.longs.Long2IntOpenHashMap;
import it.unimi.dsi.fastutil.longs.LongArrayList;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.streaming.api.operators.StreamingRuntimeContext;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

/**
 * Draws a link batch's negative candidates ({@link NegativeCandidates}: the memory store's tries, ahead) and asks the
 * lookups owning their keyed ends for those ends' neighbours among the other ends ({@link #REQUESTS}, whole lists
 * kept to those members), so {@link NegativeStageFunction} can tell which are edges. Binary: the candidate pairs'
 * keyed ends. Triplet: lists keyed by source, the positives' sources (the candidates are destinations); keyed by
 * destination, the candidates, each pair's source one of the positives'.
 */
public class NegativeProbeFunction extends ProcessFunction<SeedBatch, LinkDraw> {
    private static final long serialVersionUID = 1L;

    /** The candidates' keyed ends, for the negatives' own adjacency copy. */
    public static final OutputTag<RequestGroup> REQUESTS = SideOutputs.tag("negative-requests", RequestGroup.class);

    private final NegativeSampling mode;
    private final double amount;
    private final int numNodes;
    private final boolean keyedBySource;
    private final long seed;
    /** The graph's node ids in index order (the client's node-id file), or null when ids equal indices. */
    private final SeedFile nodeIds;
    /** Triplet: the seed edges' sources' ids by position; else null. */
    private final long[] linkSources;

    /** The node ids copied to this TaskManager for reads by index, or null. */
    private transient LocalSeedArray ids;

    /**
     * @param mode binary or triplet
     * @param amount negatives per positive ({@code fanout.neg-amount}; binary: a batch of P draws
     *     {@code ceil(P x amount)}; triplet: {@code amount} per positive, a whole number)
     * @param numNodes the graph's nodes: candidates are indices below it, as the memory store's
     * @param keyedBySource whether the lookups' lists are keyed by an edge's source
     * @param seed the job's seed
     * @param nodeIds the graph's node ids in index (ascending) order, or null when they are {@code 0..numNodes-1}
     * @param linkSources the seed edges' sources' ids by position (triplets need them)
     */
    public NegativeProbeFunction(NegativeSampling mode, double amount, int numNodes, boolean keyedBySource, long seed,
            SeedFile nodeIds, long[] linkSources) {
        if (mode == NegativeSampling.NONE) {
            throw new IllegalArgumentException("no negatives to draw");
        }
        this.mode = mode;
        this.amount = amount;
        this.numNodes = numNodes;
        this.keyedBySource = keyedBySource;
        this.seed = seed;
        this.nodeIds = nodeIds;
        this.linkSources = mode == NegativeSampling.TRIPLET ? linkSources : null;
    }

    @Override
    public void open(OpenContext openContext) throws Exception {
        if (nodeIds != null) {
            String[] dirs = ((StreamingRuntimeContext) getRuntimeContext()).getTaskManagerRuntimeInfo()
                    .getTmpDirectories();
            int subtask = getRuntimeContext().getTaskInfo().getIndexOfThisSubtask();
            ids = LocalSeedArray.write(nodeIds, Path.of(dirs[subtask % dirs.length]));
        }
    }

    @Override
    public void close() throws Exception {
        if (ids != null) {
            ids.close();
        }
    }

    @Override
    public void processElement(SeedBatch batch, Context ctx, Collector<LinkDraw> out) throws IOException {
        LinkDraw draw = new LinkDraw();
        draw.batchKey = batch.key();
        draw.batch = batch;
        draw.keyedBySource = keyedBySource;
        long[] keyed;
        long[] other;
        if (mode == NegativeSampling.BINARY) {
            draw.count = (int) Math.ceil(batch.size() * amount); // as LinkBatch.of
            int[][] pairs = NegativeCandidates.binary(numNodes, numNodes, NegativeCandidates.candidates(draw.count),
                    seed, batch.epoch, batch.batchId);
            draw.candidateSrc = idsOf(pairs[0]);
            draw.candidateDst = idsOf(pairs[1]);
            keyed = keyedBySource ? draw.candidateSrc : draw.candidateDst;
            other = keyedBySource ? draw.candidateDst : draw.candidateSrc;
        } else {
            draw.tripletAmount = (int) amount;
            draw.count = Math.multiplyExact(batch.size(), draw.tripletAmount);
            draw.candidateDst = idsOf(NegativeCandidates.triplet(numNodes, NegativeCandidates.candidates(draw.count),
                    seed, batch.epoch, batch.batchId));
            draw.sources = new long[batch.size()];
            for (int i = 0; i < draw.sources.length; i++) {
                draw.sources[i] = linkSources[batch.seeds[i]];
            }
            keyed = keyedBySource ? draw.sources : draw.candidateDst;
            other = keyedBySource ? draw.candidateDst : draw.sources;
        }
        Long2IntOpenHashMap position = new Long2IntOpenHashMap(keyed.length);
        position.defaultReturnValue(-1);
        LongArrayList keys = new LongArrayList();
        draw.keyPositions = new int[keyed.length];
        for (int c = 0; c < keyed.length; c++) {
            int at = position.putIfAbsent(keyed[c], keys.size());
            if (at < 0) {
                at = keys.size();
                keys.add(keyed[c]);
            }
            draw.keyPositions[c] = at;
        }
        draw.keys = keys.toLongArray();
        long[] members = Arrays.stream(other).sorted().distinct().toArray();
        RequestRouting.split(draw.keys, getRuntimeContext().getTaskInfo(), (nodes, positions) -> {
            RequestGroup group = new RequestGroup(draw.batchKey, batch.epoch, batch.batchId, 0, 0L, nodes, positions);
            group.members = members;
            ctx.output(REQUESTS, group);
        });
        out.collect(draw);
    }

    /** The node ids of {@code indices}. */
    private long[] idsOf(int[] indices) throws IOException {
        if (ids != null) {
            return ids.read(indices);
        }
        long[] out = new long[indices.length];
        for (int i = 0; i < out.length; i++) {
            out[i] = indices[i];
        }
        return out;
    }
}
