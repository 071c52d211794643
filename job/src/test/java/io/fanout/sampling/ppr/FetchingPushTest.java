package io.fanout.sampling.ppr;

import static org.assertj.core.api.Assertions.assertThat;

import io.fanout.graph.CsrGraph;
import io.fanout.graph.EdgeDirection;
import io.fanout.graph.GraphLoader;
import io.fanout.random.SplitMix64;
import io.fanout.testing.SharedData;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.function.LongFunction;
import org.junit.jupiter.api.Test;

/**
 * The partitioned store's PPR (lists fetched in rounds, {@link PprBatchPush}) against the in-memory store's
 * ({@link ForwardPush}, {@link PprSampler}) on real graphs at GiGL's defaults (alpha 0.5, eps 1e-4, 50 nodes):
 * with every round it needs the result is bit for bit the memory store's; with fewer rounds every reported
 * value is within the forward-push bound of ../shared/oracles/ppr_oracle.py's exact PPR.
 */
public class FetchingPushTest {
    private static final double ALPHA = 0.5;
    private static final double EPS = 1e-4;
    private static final int K = 50;
    private static final long JOB_SEED = 42;
    /** Float rounding allowance of the bound checks. */
    private static final double ROUNDING = 1e-12;

    @Test
    void withEveryRoundItNeedsCoraEqualsTheMemoryStore() throws Exception {
        equalsTheMemoryStore("cora", -1);
        equalsTheMemoryStore("cora", 3); // capped lists: the same Floyd positions in the same read order
    }

    @Test
    void withEveryRoundItNeedsPubmedEqualsTheMemoryStore() throws Exception {
        equalsTheMemoryStore("pubmed", 1000);
        equalsTheMemoryStore("pubmed", 4);
    }

    @Test
    void fewerRoundsStayWithinTheBoundOfTheOracleOnCora() throws Exception {
        withinTheOracleBound("cora", 2);
        withinTheOracleBound("cora", io.fanout.config.FanoutOptions.PPR_MAX_FETCH_ITERATIONS.defaultValue());
    }

    @Test
    void fewerRoundsStayWithinTheBoundOfTheOracleOnPubmed() throws Exception {
        withinTheOracleBound("pubmed", 3);
        withinTheOracleBound("pubmed", io.fanout.config.FanoutOptions.PPR_MAX_FETCH_ITERATIONS.defaultValue());
    }

    @Test
    void aPushLeftWithoutListsKeepsItsResidual() {
        PushNodes nodes = new PushNodes();
        FetchingPush push = new FetchingPush(nodes, 7, ALPHA, EPS, -1);
        SlotLists none = new SlotLists(0);
        assertThat(push.advance(none, true)).isFalse();
        long[] missing = new long[1];
        push.forEachMissing(none, slot -> missing[0] = nodes.id(slot));
        assertThat(missing[0]).isEqualTo(7);
        assertThat(push.advance(none, false)).isTrue();
        assertThat(push.score(0)).isZero();
        assertThat(push.residual(0)).isEqualTo(ALPHA);
        assertThat(push.pushes()).isZero();
    }

    @Test
    void stateSurvivesBytes() throws Exception {
        stateSurvivesBytes(false);
    }

    /** Through bytes while some pushes are settled and others still run. */
    @Test
    void settlingStateSurvivesBytes() throws Exception {
        stateSurvivesBytes(true);
    }

    @Test
    void aStateTooLargeForOneBatchIsRefusedNamingTheOptions() {
        PprBatchPush batch = new PprBatchPush(new long[] {1, 2, 3}, ALPHA, EPS, K, true);
        int size = batch.toBytes().length;
        assertThat(batch.toBytes(size)).hasSize(size);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> batch.toBytes(size - 1))
                .isInstanceOf(PprStateTooLargeException.class)
                .hasMessage("the PPR state of one batch of 3 seeds (3 pushes open, 0 lists) would take " + String.format(
                        java.util.Locale.ROOT, "%,d", size) + " bytes, over the " + String.format(java.util.Locale.ROOT,
                        "%,d", size - 1) + " one batch can hold: use fewer seeds per batch (--batch-size) or a larger --eps");
    }

    /** A state whose push record claims more nodes than the state holds is refused, not read past its end. */
    @Test
    void aCorruptPushRecordIsRefusedNamingIt() {
        byte[] state = new PprBatchPush(new long[] {1, 2, 3}, ALPHA, EPS, K, true).toBytes();
        ByteBuffer in = ByteBuffer.wrap(state).order(PushNodes.STATE_ORDER);
        // settleK, top-up, the nodes (count, ids), the seed count; then the first record: tag, alpha, eps, n
        int first = 4 + 1 + 4 + 8 * in.getInt(5) + 4;
        in.putInt(first + 1 + 16, 1_000_000);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> PprBatchPush.fromBytes(state))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("a push state of 1000000 nodes at byte " + (first + 1) + " of " + state.length);
    }

    /** A state cut off inside a push record's header is refused naming where, not read past its end. */
    @Test
    void aStateCutInsideARecordHeaderIsRefusedNamingIt() {
        byte[] whole = new PprBatchPush(new long[] {1, 2, 3}, ALPHA, EPS, K, true).toBytes();
        ByteBuffer in = ByteBuffer.wrap(whole).order(PushNodes.STATE_ORDER);
        int first = 4 + 1 + 4 + 8 * in.getInt(5) + 4;
        byte[] cut = java.util.Arrays.copyOf(whole, first + 1 + 10); // the tag and 10 of the header's 20 bytes
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> PprBatchPush.fromBytes(cut))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("a push state at byte " + (first + 1) + " of " + cut.length + ": its header is cut off");
    }

    /**
     * Rounds as the job runs them (state bytes in, a fetch's lists added as one answer, the state out) give the
     * lists-one-by-one batch's selection, with two batches advancing in turn on one thread (an advance writes into
     * its thread's buffer), and the state an advance writes is byte for byte the one the general encoder writes.
     */
    @Test
    void roundsAsTheJobRunsThemWriteTheStateTheEncoderWritesAndSelectAsDirectly() throws Exception {
        CsrGraph graph = GraphLoader.load(SharedData.graph("pubmed"), EdgeDirection.OUT);
        LongFunction<FetchedList> lists = lists(graph, 1000);
        java.util.List<int[]> batches = batches(graph, 2, 64);
        long[][] seeds = new long[2][];
        byte[][] states = new byte[2][];
        long[][] missing = new long[2][];
        for (int b = 0; b < 2; b++) {
            seeds[b] = Arrays.stream(batches.get(b)).asLongStream().toArray();
            PprBatchPush start = new PprBatchPush(seeds[b], ALPHA, EPS, K, true);
            missing[b] = start.advance(true);
            states[b] = start.toBytes();
        }
        int rounds = 0;
        while (missing[0].length + missing[1].length > 0) {
            rounds++;
            for (int b = 0; b < 2; b++) {
                if (missing[b].length == 0) {
                    continue;
                }
                // One answer for the round, the lists back to back.
                int n = missing[b].length;
                int[] degrees = new int[n];
                int[] ends = new int[n];
                java.util.List<FetchedList> fetched = new java.util.ArrayList<>();
                int total = 0;
                for (int i = 0; i < n; i++) {
                    FetchedList list = lists.apply(missing[b][i]);
                    fetched.add(list);
                    degrees[i] = list.degree();
                    total += list.neighbors().length;
                    ends[i] = total;
                }
                long[] neighbors = new long[total];
                int[] neighborDegrees = new int[total];
                for (int i = 0; i < n; i++) {
                    int from = ends[i] - fetched.get(i).neighbors().length;
                    System.arraycopy(fetched.get(i).neighbors(), 0, neighbors, from, ends[i] - from);
                    System.arraycopy(fetched.get(i).neighborDegrees(), 0, neighborDegrees, from, ends[i] - from);
                }
                PprBatchPush push = PprBatchPush.fromBytes(states[b], n, total);
                push.addLists(missing[b], degrees, ends, neighbors, neighborDegrees);
                missing[b] = push.advance(true);
                states[b] = push.toBytes();
                push.addLists(new long[0], new int[0], new int[0], new long[0], new int[0]); // encoded anew
                assertThat(push.toBytes()).as("batch %d round %d", b, rounds).isEqualTo(states[b]);
            }
        }
        assertThat(rounds).isGreaterThan(2);
        for (int b = 0; b < 2; b++) {
            PprBatchPush direct = new PprBatchPush(seeds[b], ALPHA, EPS, K, true);
            run(direct, lists, Integer.MAX_VALUE);
            PprBatchPush.Result x = direct.select(K, true);
            PprBatchPush.Result y = PprBatchPush.fromBytes(states[b]).select(K, true);
            assertThat(y.ids).isEqualTo(x.ids);
            assertThat(y.edgeIndex).isEqualTo(x.edgeIndex);
            assertThat(y.edgeAttr).isEqualTo(x.edgeAttr);
            assertThat(y.pushes).isEqualTo(x.pushes);
        }
    }

    private static void stateSurvivesBytes(boolean settle) throws Exception {
        CsrGraph graph = GraphLoader.load(SharedData.graph("cora"), EdgeDirection.OUT);
        long[] seeds = {0, 5, 17, 5, 1358, 2000};
        PprBatchPush direct = new PprBatchPush(seeds, ALPHA, EPS);
        PprBatchPush viaBytes = settle ? new PprBatchPush(seeds, ALPHA, EPS, K, true) : new PprBatchPush(seeds, ALPHA, EPS);
        boolean mixed = false;
        LongFunction<FetchedList> lists = lists(graph, 1000);
        long[] a = direct.advance(true);
        long[] b = viaBytes.advance(true);
        while (a.length > 0) {
            assertThat(b).isEqualTo(a);
            for (long node : a) {
                direct.addList(node, lists.apply(node));
                viaBytes.addList(node, lists.apply(node));
            }
            viaBytes = PprBatchPush.fromBytes(viaBytes.toBytes());
            a = direct.advance(true);
            b = viaBytes.advance(true);
            int open = 0;
            for (int i = 0; i < viaBytes.numSeeds(); i++) {
                open += viaBytes.push(i) != null ? 1 : 0;
            }
            mixed |= open > 0 && open < viaBytes.numSeeds();
        }
        assertThat(b).isEmpty();
        assertThat(mixed).as("a round with settled and running pushes").isEqualTo(settle);
        PprBatchPush.Result x = direct.select(K, true);
        PprBatchPush.Result y = viaBytes.select(K, true);
        assertThat(y.ids).isEqualTo(x.ids);
        assertThat(y.edgeIndex).isEqualTo(x.edgeIndex);
        assertThat(y.edgeAttr).isEqualTo(x.edgeAttr);
        assertThat(y.pushes).isEqualTo(x.pushes);
        assertThat(x.numSeeds).isEqualTo(5);
    }

    private static void equalsTheMemoryStore(String dataset, int maxNeighbors) throws Exception {
        CsrGraph graph = GraphLoader.load(SharedData.graph(dataset), EdgeDirection.OUT);
        LongFunction<FetchedList> lists = lists(graph, maxNeighbors);
        ForwardPush memory = new ForwardPush(graph, ALPHA, EPS, maxNeighbors, JOB_SEED);
        PprSampler sampler = new PprSampler(graph, ALPHA, EPS, K, maxNeighbors, true, JOB_SEED);
        int maxRounds = 0;
        for (int[] batch : batches(graph, 4, 16)) {
            long[] ids = Arrays.stream(batch).asLongStream().toArray();
            PprBatchPush fetched = new PprBatchPush(ids, ALPHA, EPS);
            int rounds = run(fetched, lists, Integer.MAX_VALUE);
            maxRounds = Math.max(maxRounds, rounds);
            for (int i = 0; i < fetched.numSeeds(); i++) {
                FetchingPush push = fetched.push(i);
                memory.run((int) push.seed());
                assertThat(push.numTouched()).isEqualTo(memory.numTouched());
                assertThat(push.pushes()).isEqualTo(memory.pushes());
                for (int v = 0; v < push.numTouched(); v++) {
                    int u = (int) push.id(v);
                    assertThat(push.score(v)).as("%s seed %d node %d score", dataset, push.seed(), u)
                            .isEqualTo(memory.score(u));
                    assertThat(push.residual(v)).isEqualTo(memory.residual(u));
                    assertThat(push.hop(v)).isEqualTo(memory.hop(u));
                }
            }
            for (boolean topUp : new boolean[] {true, false}) {
                PprSampler plain = topUp ? sampler : new PprSampler(graph, ALPHA, EPS, K, maxNeighbors, false, JOB_SEED);
                PprSubgraph expected = plain.sample(batch);
                // Kept pushes selected at the end, and pushes settled as each finished (as the job runs them).
                PprBatchPush settling = new PprBatchPush(ids, ALPHA, EPS, K, topUp);
                run(settling, lists, Integer.MAX_VALUE);
                for (PprBatchPush.Result actual : java.util.List.of(fetched.select(K, topUp), settling.select(K, topUp))) {
                    assertThat(actual.ids).isEqualTo(Arrays.stream(expected.ids()).asLongStream().toArray());
                    assertThat(actual.numSeeds).isEqualTo(expected.numSeeds());
                    assertThat(actual.edgeIndex).isEqualTo(expected.edgeIndex());
                    assertThat(actual.edgeAttr).isEqualTo(expected.edgeAttr());
                    assertThat(actual.pushes).isEqualTo(fetched.select(K, topUp).pushes);
                }
                for (int i = 0; i < settling.numSeeds(); i++) {
                    assertThat(settling.push(i)).as("a finished push is settled").isNull();
                }
                assertThat(settling.numFetched()).as("lists dropped once every push settled").isZero();
            }
        }
        System.out.printf("%s maxNeighbors %d: at most %d fetch rounds per batch%n", dataset, maxNeighbors, maxRounds);
        assertThat(maxRounds).isGreaterThan(2);
    }

    private static void withinTheOracleBound(String dataset, int maxRounds) throws Exception {
        CsrGraph graph = GraphLoader.load(SharedData.graph(dataset), EdgeDirection.OUT);
        LongFunction<FetchedList> lists = lists(graph, -1);
        int[] seeds = batches(graph, 1, 20).get(0);
        double[][] exact = PprOracle.exact(dataset, ALPHA, seeds, false);
        PprBatchPush fetched = new PprBatchPush(Arrays.stream(seeds).asLongStream().toArray(), ALPHA, EPS);
        int rounds = run(fetched, lists, maxRounds);
        assertThat(rounds).isLessThanOrEqualTo(maxRounds);
        PprBatchPush.Result result = fetched.select(K, true);
        int ne = result.numEdges();
        assertThat(ne).isGreaterThan(seeds.length);
        double worst = 0;
        for (int e = 0; e < ne; e++) {
            int si = result.edgeIndex[e];
            FetchingPush push = fetched.push(si);
            double bound = push.residualMass() / ALPHA + ROUNDING;
            long node = result.ids[result.edgeIndex[ne + e]];
            double gap = exact[si][(int) node] - result.edgeAttr[2 * e];
            worst = Math.max(worst, gap);
            assertThat(gap).as("%s seed %d node %d: exact - reported", dataset, push.seed(), node)
                    .isBetween(-ROUNDING, bound);
        }
        for (int si = 0; si < fetched.numSeeds(); si++) {
            FetchingPush push = fetched.push(si);
            double bound = push.residualMass() / ALPHA + ROUNDING;
            for (int v = 0; v < push.numTouched(); v++) {
                assertThat(exact[si][(int) push.id(v)] - push.score(v)).isBetween(-ROUNDING, bound);
            }
        }
        System.out.printf("%s, %d fetch rounds: worst exact - reported %.3g%n", dataset, maxRounds, worst);
    }

    /** Runs the rounds as the job does; returns how many fetch rounds the batch used. */
    public static int run(PprBatchPush batch, LongFunction<FetchedList> lists, int maxRounds) {
        long[] missing = batch.advance(true);
        int rounds = 0;
        while (missing.length > 0) {
            rounds++;
            for (long node : missing) {
                batch.addList(node, lists.apply(node));
            }
            missing = batch.advance(rounds < maxRounds);
        }
        return rounds;
    }

    /** The lists the partitioned store's fetch answers with, from the CSR graph (ids = indices). */
    public static LongFunction<FetchedList> lists(CsrGraph graph, int maxNeighbors) {
        return id -> {
            int u = (int) id;
            int start = graph.start(u);
            int d = graph.degree(u);
            long[] list = new long[d];
            int[] degrees = new int[d];
            for (int i = 0; i < d; i++) {
                list[i] = graph.targets()[start + i];
                degrees[i] = graph.degree((int) list[i]);
            }
            return FetchedList.of(id, list, degrees, maxNeighbors, JOB_SEED);
        };
    }

    /** {@code count} batches of {@code size} random seeds, the first led by the highest-degree node. */
    static java.util.List<int[]> batches(CsrGraph graph, int count, int size) {
        int top = 0;
        for (int v = 1; v < graph.numNodes(); v++) {
            if (graph.degree(v) > graph.degree(top)) {
                top = v;
            }
        }
        SplitMix64 rng = new SplitMix64(7);
        java.util.List<int[]> out = new java.util.ArrayList<>();
        for (int b = 0; b < count; b++) {
            int[] batch = new int[size];
            for (int i = 0; i < size; i++) {
                batch[i] = rng.nextInt(graph.numNodes());
            }
            if (b == 0) {
                batch[0] = top;
                batch[size - 1] = batch[1]; // a repeated seed is pushed once
            }
            out.add(batch);
        }
        return out;
    }
}
