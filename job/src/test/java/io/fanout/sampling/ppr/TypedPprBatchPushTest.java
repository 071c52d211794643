package io.fanout.sampling.ppr;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.features.FeatureDType;
import io.fanout.graph.CsrGraph;
import io.fanout.graph.EdgeDirection;
import io.fanout.graph.NodeIdMap;
import io.fanout.graph.typed.EdgeType;
import io.fanout.graph.typed.TypedAdjacency;
import io.fanout.store.GraphSpec;
import io.fanout.store.TypedGraphStore;
import io.fanout.testing.SharedData;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Typed PPR over rows fetched in rounds ({@link TypedPprBatchPush}) against the memory store's
 * {@link TypedPprSampler} on the real typed graphs cora_hetero and bitcoin_alpha_typed: with rounds enough, every
 * node, PPR edge, weight bit, attributed channel and sampled edge is the same, with and without channels, residual
 * top-up, the neighbour cap, in both directions. The rows are cut from the loaded graph as a partitioned store
 * would serve them (key = node type and id, rows cut by {@link TypedNodeRows#readPositions}), and the batch state
 * goes through its bytes every round.
 */
class TypedPprBatchPushTest {
    private static final double ALPHA = 0.5;
    private static final long SEED = 3;

    @ParameterizedTest
    @CsvSource(delimiter = ';', value = {
        "cora_hetero; out; paper; paper__cites__paper:0.6,paper__has_word__word:0.4; 20; 1e-4; true; true; -1",
        "cora_hetero; out; paper; paper__cites__paper:0.5,paper__has_word__word:0.5; 16; 1e-4; false; true; 4",
        "cora_hetero; out; paper; ; 24; 1e-4; true; true; -1",
        "cora_hetero; in; word; ; 12; 1e-4; true; true; 6",
        "bitcoin_alpha_typed; out; user; user__trusts__user:0.7,user__distrusts__user:0.3; 20; 1e-5; true; true; -1",
        "bitcoin_alpha_typed; in; user; user__trusts__user:0.5,user__distrusts__user:0.5; 10; 1e-4; true; true; 3",
        "bitcoin_alpha_typed; out; user; ; 30; 1e-4; false; false; -1",
    })
    void sameAsTheMemoryStore(String graph, String dir, String seedType, String channels, int maxPprNodes, double eps,
            boolean topUp, boolean sampledEdges, int maxNeighbors) throws Exception {
        TypedGraphStore g = TypedGraphStore.load(new GraphSpec(SharedData.graph(graph).toString(),
                EdgeDirection.valueOf(dir.toUpperCase(java.util.Locale.ROOT)), null, FeatureDType.FLOAT32, true));
        PprChannels parsed = channels == null ? null : PprChannels.parse(channels, g.adjacency().keySet());
        TypedPprSampler memory = new TypedPprSampler(g.adjacency(), g.nodeIds(), seedType, parsed, ALPHA, eps,
                maxPprNodes, maxNeighbors, topUp, sampledEdges, SEED);
        Rows rows = new Rows(g, maxNeighbors);
        int seedOrdinal = rows.nodeTypes.indexOf(seedType);
        NodeIdMap seedIds = g.nodeIds(seedType);
        int n = seedIds.size();
        for (int b = 0; b < 3; b++) {
            // Batches of 16 seeds spread over the type, one repeated.
            int[] seeds = new int[17];
            for (int i = 0; i < 16; i++) {
                seeds[i] = (int) ((long) (b * 16 + i) * 7919 % n);
            }
            seeds[16] = seeds[3];
            TypedPprSubgraph expected = memory.sample(seeds);
            long[] keys = new long[seeds.length];
            for (int i = 0; i < seeds.length; i++) {
                keys[i] = TypedPprBatchPush.key(seedOrdinal, seedIds.id(seeds[i]));
            }
            TypedPprBatchPush push = new TypedPprBatchPush(keys, rows.nodeTypes.size(), rows.keyType, rows.names,
                    parsed, ALPHA, eps, maxPprNodes, topUp, sampledEdges);
            int rounds = 0;
            for (long[] missing = push.advance(true); missing.length > 0; missing = push.advance(true)) {
                for (long node : missing) {
                    push.addRows(node, rows.of(node));
                }
                // Through its bytes every round, as keyed state between fetch rounds carries it.
                push = TypedPprBatchPush.fromBytes(push.toBytes());
                rounds++;
            }
            assertThat(rounds).isGreaterThan(1);
            TypedPprBatchPush.Result got = push.select();
            assertThat(got.numSeeds).isEqualTo(expected.numSeeds);
            assertThat(got.columns).isEqualTo(expected.columns);
            assertThat(got.pushes).isEqualTo(expected.pushes);
            for (int t = 0; t < rows.nodeTypes.size(); t++) {
                String type = rows.nodeTypes.get(t);
                NodeIdMap ids = g.nodeIds(type);
                int[] want = expected.nodes.get(type);
                long[] wantIds = new long[want.length];
                for (int i = 0; i < want.length; i++) {
                    wantIds[i] = TypedPprBatchPush.key(t, ids.id(want[i]));
                }
                assertThat(got.nodes[t]).as("nodes of %s", type).containsExactly(wantIds);
                TypedPprSubgraph.PprEdges edges = expected.pprEdges.get(type);
                assertThat(got.edgeIndex[t]).as("ppr edges to %s", type).containsExactly(edges.edgeIndex);
                assertThat(got.weights[t]).as("weights to %s", type).containsExactly(edges.weights);
                assertThat(got.channel[t]).as("channels to %s", type).containsExactly(edges.channel);
            }
            int sampled = 0;
            for (int e = 0; e < rows.edgeTypes.size(); e++) {
                TypedAdjacency a = rows.adjacency.get(e);
                EdgeType reported = a.csr().direction() == EdgeDirection.OUT ? a.type().reversed() : a.type();
                TypedPprSubgraph.SampledEdges want = expected.sampledEdges.get(reported);
                if (!sampledEdges) {
                    assertThat(want).isNull();
                    assertThat(got.sampledRows[e]).isEmpty();
                    continue;
                }
                assertThat(got.sampledRows[e]).as("rows of %s", reported).containsExactly(want.rows);
                assertThat(got.sampledCols[e]).as("cols of %s", reported).containsExactly(want.cols);
                int[] positions = new int[want.rows.length];
                NodeIdMap keyIds = g.nodeIds(a.keyType());
                for (int i = 0; i < positions.length; i++) {
                    long key = got.nodes[rows.keyType[e]][got.sampledCols[e][i]];
                    positions[i] = a.csr().offsets()[keyIds.indexOf(TypedPprBatchPush.idOf(key))]
                            + got.sampledPositions[e][i];
                }
                assertThat(positions).as("positions of %s", reported).containsExactly(want.positions);
                sampled += positions.length;
            }
            if (sampledEdges) {
                assertThat(sampled).isPositive();
            }
        }
    }

    /**
     * The rows a batch read from its state go back as they were (an unchanged state's bytes are the same), the rows
     * added since after them; a state naming a node's rows twice is refused.
     */
    @Test
    void rowsReadFromTheStateAreWrittenBackAsTheyWereAndNewOnesAfter() throws Exception {
        TypedGraphStore g = TypedGraphStore.load(new GraphSpec(SharedData.graph("cora_hetero").toString(),
                EdgeDirection.IN, null, FeatureDType.FLOAT32, true));
        Rows rows = new Rows(g, -1);
        int paper = rows.nodeTypes.indexOf("paper");
        long[] keys = {TypedPprBatchPush.key(paper, 0), TypedPprBatchPush.key(paper, 7)};
        TypedPprBatchPush push = new TypedPprBatchPush(keys, rows.nodeTypes.size(), rows.keyType, rows.names, null,
                ALPHA, 1e-4, 10, true, true);
        long[] fetched = push.advance(true);
        long rowBytes = 0;
        for (long node : fetched) {
            push.addRows(node, rows.of(node));
            rowBytes += 8 + rows.of(node).bodyBytes();
        }
        byte[] first = push.toBytes();
        int rowsAt = Math.toIntExact(first.length - rowBytes); // the state ends with its rows, after their count
        byte[] firstRows = Arrays.copyOfRange(first, rowsAt, first.length);

        TypedPprBatchPush read = TypedPprBatchPush.fromBytes(first);
        assertThat(read.toBytes()).isEqualTo(first);
        long[] next = read.advance(true);
        assertThat(next).isNotEmpty();
        long nextBytes = 0;
        for (long node : next) {
            read.addRows(node, rows.of(node));
            nextBytes += 8 + rows.of(node).bodyBytes();
        }
        byte[] second = read.toBytes();
        int secondRowsAt = Math.toIntExact(second.length - rowBytes - nextBytes);
        assertThat(ByteBuffer.wrap(second, secondRowsAt - 4, 4).order(PushNodes.STATE_ORDER).getInt())
                .isEqualTo(fetched.length + next.length);
        assertThat(Arrays.copyOfRange(second, secondRowsAt, secondRowsAt + firstRows.length))
                .as("the rows read from the state, verbatim, in front").isEqualTo(firstRows);

        byte[] twice = Arrays.copyOf(first, first.length + firstRows.length);
        System.arraycopy(firstRows, 0, twice, first.length, firstRows.length);
        ByteBuffer.wrap(twice, rowsAt - 4, 4).order(PushNodes.STATE_ORDER).putInt(2 * fetched.length);
        assertThatThrownBy(() -> TypedPprBatchPush.fromBytes(twice)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageEndingWith("'s rows twice in the typed PPR batch state");
    }

    /** Every node's rows as a partitioned store would answer a fetch, from the loaded graph. */
    private static final class Rows {
        final List<String> nodeTypes;
        final List<EdgeType> edgeTypes;
        final List<String> names = new ArrayList<>();
        final List<TypedAdjacency> adjacency;
        final int[] keyType;
        final int[] valueType;
        final Map<String, NodeIdMap> ids;
        final int maxNeighbors;

        Rows(TypedGraphStore g, int maxNeighbors) {
            this.nodeTypes = new ArrayList<>(new TreeMap<>(g.nodeIds()).keySet());
            TreeMap<EdgeType, TypedAdjacency> byName = new TreeMap<>(g.adjacency());
            this.edgeTypes = new ArrayList<>(byName.keySet());
            this.adjacency = new ArrayList<>(byName.values());
            edgeTypes.forEach(t -> names.add(t.toString()));
            keyType = new int[edgeTypes.size()];
            valueType = new int[edgeTypes.size()];
            for (int e = 0; e < keyType.length; e++) {
                keyType[e] = nodeTypes.indexOf(adjacency.get(e).keyType());
                valueType[e] = nodeTypes.indexOf(adjacency.get(e).valueType());
            }
            this.ids = g.nodeIds();
            this.maxNeighbors = maxNeighbors;
        }

        private int degree(int e, int type, int index) {
            if (keyType[e] != type) {
                return 0;
            }
            CsrGraph csr = adjacency.get(e).csr();
            return csr.offsets()[index + 1] - csr.offsets()[index];
        }

        TypedNodeRows of(long key) {
            int type = TypedPprBatchPush.typeOf(key);
            long id = TypedPprBatchPush.idOf(key);
            int index = ids.get(nodeTypes.get(type)).indexOf(id);
            int e = edgeTypes.size();
            int[] degree = new int[e];
            long[][] neighbors = new long[e][];
            int[][] positions = new int[e][];
            int[][] neighborDegrees = new int[e][];
            for (int m = 0; m < e; m++) {
                degree[m] = degree(m, type, index);
                if (keyType[m] != type) {
                    neighbors[m] = new long[0];
                    positions[m] = new int[0];
                    neighborDegrees[m] = new int[0];
                    continue;
                }
                TypedAdjacency a = adjacency.get(m);
                int start = a.csr().offsets()[index];
                int[] pos = TypedNodeRows.readPositions(names.get(m), id, degree[m], maxNeighbors, SEED);
                NodeIdMap valueIds = ids.get(nodeTypes.get(valueType[m]));
                neighbors[m] = new long[pos.length];
                neighborDegrees[m] = new int[pos.length * e];
                for (int j = 0; j < pos.length; j++) {
                    int w = a.csr().targets()[start + pos[j]] - a.valueBase();
                    neighbors[m][j] = TypedPprBatchPush.key(valueType[m], valueIds.id(w));
                    for (int f = 0; f < e; f++) {
                        neighborDegrees[m][j * e + f] = degree(f, valueType[m], w);
                    }
                }
                positions[m] = pos;
            }
            return new TypedNodeRows(degree, neighbors, positions, neighborDegrees);
        }
    }
}
