package io.fanout.flink.partitioned;

import io.fanout.sampling.ppr.PprBatchPush;
import it.unimi.dsi.fastutil.longs.Long2IntOpenHashMap;
import java.util.List;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

/**
 * PPR fetch round {@code r} of the batches, keyed by batch (GiGL's per-batch push loop, unrolled): input 1 is a
 * batch after round {@code r-1}, input 2 the lists it asked for in round {@code r}, grouped per fetch subtask
 * ({@link PprAnswerGroup}). Both wait (the answers in keyed state, the batch on the heap) until every list arrived
 * ({@link GatherStageFunction}); then the batch's pushes go on with them ({@link PprBatchPush#advance}) and the lists they miss next go out on
 * {@link #requests(int) requests(r+1)}, grouped per fetch subtask. The last round allows no further fetch: every push
 * finishes with the lists it has. A batch whose pushes finished earlier passes through.
 *
 * <p>With graph updates, input 2 also brings the degrees of the lists' neighbours at the batch's version (groups
 * with {@link PprAnswerGroup#degreeAnswer}); the batch waits for those too: as many as its list groups asked for.
 */
public class PprRoundFunction extends GatherStageFunction<PprPartial, PprAnswerGroup> {
    private static final long serialVersionUID = 1L;

    /** Side output of fetch round {@code round}'s requests. */
    public static OutputTag<PprFetchRequest> requests(int round) {
        return SideOutputs.tag("ppr-round-" + round + "-requests", PprFetchRequest.class);
    }

    private final int round;
    private final int rounds;

    /** With graph updates: neighbour degrees answered against those the list groups in so far asked for. */
    private transient AnswerTally degreeTally;

    /**
     * @param round this stage's round, 1-based
     * @param rounds the number of fetch rounds ({@code --ppr-max-fetch-iterations})
     */
    public PprRoundFunction(int round, int rounds) {
        super("ppr-batch", PprPartial.class, "ppr-answers", PprAnswerGroup.class);
        this.round = round;
        this.rounds = rounds;
    }

    @Override
    public void open(OpenContext openContext) throws Exception {
        super.open(openContext);
        degreeTally = new AnswerTally(getRuntimeContext(), "degrees-");
    }

    /** A batch whose pushes finished in an earlier round. */
    @Override
    protected boolean passesOn(PprPartial partial) {
        return partial.pending == 0;
    }

    @Override
    protected int expected(PprPartial partial) {
        return partial.pending;
    }

    /** A list group counts its lists (and tells how many degrees follow); a degree group counts on its own tally. */
    @Override
    protected int counted(PprAnswerGroup answer) throws Exception {
        if (answer.degreeAnswer) {
            degreeTally.answer(answer.size());
            return 0;
        }
        if (answer.degreesFollow) {
            degreeTally.expectMore(answer.degreeRequests);
        }
        return answer.size();
    }

    /** Once every list group is in, the degrees they asked for are known in full. */
    @Override
    protected boolean settled() throws Exception {
        return degreeTally.settled();
    }

    @Override
    protected void clearMore() {
        degreeTally.clear();
    }

    /** Every list the batch asked for is in: its pushes go on. */
    @Override
    protected void complete(PprPartial partial, List<PprAnswerGroup> answers, Context ctx, Collector<PprPartial> out) {
        int lists = 0;
        long neighbors = 0;
        for (PprAnswerGroup a : answers) {
            if (!a.degreeAnswer) {
                lists += a.size();
                neighbors += a.neighbors.length;
            }
        }
        PprBatchPush push = PprBatchPush.fromBytes(partial.state, lists, neighbors);
        Long2IntOpenHashMap degrees = new Long2IntOpenHashMap();
        degrees.defaultReturnValue(-1);
        for (PprAnswerGroup a : answers) {
            if (a.degreeAnswer) {
                for (int i = 0; i < a.size(); i++) {
                    degrees.put(a.nodes[i], a.degrees[i]);
                }
            }
        }
        for (PprAnswerGroup a : answers) {
            if (a.degreeAnswer) {
                continue;
            }
            if (a.degreesFollow) {
                for (int j = 0; j < a.neighbors.length; j++) {
                    int d = degrees.get(a.neighbors[j]);
                    if (d < 0) {
                        throw new IllegalStateException("PPR round " + round + ": no degree came for neighbour "
                                + a.neighbors[j] + " of batch " + partial.batchKey);
                    }
                    a.neighborDegrees[j] = d;
                }
            }
            push.addLists(a.nodes, a.degrees, a.ends, a.neighbors, a.neighborDegrees);
        }
        long[] missing = PprPartial.advance(push, round < rounds);
        partial.state = PprPartial.stateOf(push);
        partial.pending = missing.length;
        OutputTag<PprFetchRequest> tag = requests(round + 1);
        PprFetchRequest.send(partial.batchKey, partial.graphVersion, missing, getRuntimeContext().getTaskInfo(),
                r -> ctx.output(tag, r));
        out.collect(partial);
    }
}
