package io.fanout.flink.partitioned;

import io.fanout.batch.LocalSeedArray;
import io.fanout.batch.SeedBatch;
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
 * keyed ends. Triplet with lists keyed by destination: the candidates, each pair's source one of the positives'.
 * Triplet with lists keyed by source: no candidates; the positives' sources' whole lists, against which the stage
 * draws every negative as the memory store does.
 */
public class NegativeProbeFunction extends ProcessFunction<SeedBatch, LinkDraw> {
    private static final long serialVersionUID = 1L;

    /** The candidates' keyed ends, for the negatives' own adjacency copy. */
    public static final OutputTag<RequestGroup> REQUESTS = SideOutputs.tag("negative-requests", RequestGroup.class);

    private final StageOptions.LinkNegatives negatives;
    private final boolean keyedBySource;
    private final long seed;
    /** Triplet: the seed edges' sources' ids by position; else null. */
    private final long[] linkSources;

    /** A plain graph's node ids copied to this TaskManager for reads by index, or null. */
    private transient LocalSeedArray ids;

    /**
     * @param negatives how many, of which kind, over which node ids ({@code fanout.neg-sampling},
     *     {@code fanout.neg-amount})
     * @param keyedBySource whether the lookups' lists are keyed by an edge's source
     * @param seed the job's seed
     * @param linkSources the seed edges' sources' ids by position (triplets need them)
     */
    public NegativeProbeFunction(StageOptions.LinkNegatives negatives, boolean keyedBySource, long seed,
            long[] linkSources) {
        if (negatives.mode() == NegativeSampling.NONE) {
            throw new IllegalArgumentException("no negatives to draw");
        }
        this.negatives = negatives;
        this.keyedBySource = keyedBySource;
        this.seed = seed;
        this.linkSources = negatives.mode() == NegativeSampling.TRIPLET ? linkSources : null;
    }

    @Override
    public void open(OpenContext openContext) throws Exception {
        // Triplets over lists keyed by source draw in the stage: no candidate ids here.
        boolean candidates = negatives.mode() == NegativeSampling.BINARY || !keyedBySource;
        if (negatives.nodeIds() != null && candidates) {
            ids = localCopy(negatives.nodeIds(), getRuntimeContext());
        }
    }

    /** {@code nodeIds} copied for reads by index into one of this TaskManager's temporary directories. */
    static LocalSeedArray localCopy(io.fanout.batch.SeedFile nodeIds,
            org.apache.flink.api.common.functions.RuntimeContext context) throws IOException {
        String[] dirs = ((StreamingRuntimeContext) context).getTaskManagerRuntimeInfo().getTmpDirectories();
        int subtask = context.getTaskInfo().getIndexOfThisSubtask();
        return LocalSeedArray.write(nodeIds, Path.of(dirs[subtask % dirs.length]));
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
        if (negatives.mode() == NegativeSampling.BINARY) {
            draw.count = (int) Math.ceil(batch.size() * negatives.amount()); // as LinkBatch.of
            int[][] pairs = NegativeCandidates.binary(negatives.numSrc(), negatives.numDst(),
                    NegativeCandidates.candidates(draw.count), seed, batch.epoch, batch.batchId);
            draw.candidateSrc = idsOf(pairs[0], negatives.srcIds());
            draw.candidateDst = idsOf(pairs[1], negatives.dstIds());
            keyed = keyedBySource ? draw.candidateSrc : draw.candidateDst;
            other = keyedBySource ? draw.candidateDst : draw.candidateSrc;
        } else {
            draw.tripletAmount = (int) negatives.amount();
            draw.count = Math.multiplyExact(batch.size(), draw.tripletAmount);
            draw.sources = new long[batch.size()];
            for (int i = 0; i < draw.sources.length; i++) {
                draw.sources[i] = linkSources[batch.seeds[i]];
            }
            if (keyedBySource) { // the sources' whole lists: the stage draws as the memory store does
                draw.wholeLists = true;
                keyed = draw.sources;
                other = null;
            } else {
                draw.candidateDst = idsOf(NegativeCandidates.triplet(negatives.numDst(),
                        NegativeCandidates.candidates(draw.count), seed, batch.epoch, batch.batchId),
                        negatives.dstIds());
                keyed = draw.candidateDst;
                other = draw.sources;
            }
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
        long[] members = other == null ? null : Arrays.stream(other).sorted().distinct().toArray();
        RequestRouting.split(draw.keys, getRuntimeContext().getTaskInfo(), (nodes, positions) -> {
            RequestGroup group = new RequestGroup(draw.batchKey, batch.epoch, batch.batchId, 0, 0L, nodes, positions);
            group.members = members;
            ctx.output(REQUESTS, group);
        });
        out.collect(draw);
    }

    /** The node ids of {@code indices}: a plain graph's by its node-id file, else {@code byIndex} (null: the same). */
    private long[] idsOf(int[] indices, long[] byIndex) throws IOException {
        if (ids != null) {
            return ids.read(indices);
        }
        long[] out = new long[indices.length];
        for (int i = 0; i < out.length; i++) {
            out[i] = byIndex == null ? indices[i] : byIndex[indices[i]];
        }
        return out;
    }
}
