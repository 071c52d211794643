package io.fanout.graph;

import static org.assertj.core.api.Assertions.assertThat;

import io.fanout.testing.SharedData;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.util.Locale;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The store's heap budget: at most 6 bytes per edge plus 16 per node for a graph without weights or timestamps.
 *
 * <p>The bound is asserted on {@link CsrGraph#heapBytes()}; the retained heap measured around a load (GC-dependent)
 * and the load time are only printed.
 */
class GraphMemoryTest {

    @org.junit.jupiter.api.BeforeAll
    static void warmUp() throws IOException {
        // Load once first so class loading and JIT are not counted as the first graph's retained heap.
        GraphLoader.load(SharedData.graph("karate"), EdgeDirection.OUT);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"cora", "pubmed", "ego_twitter_u", "cnr_2000"})
    void plainGraphFitsSixBytesPerEdgePlusSixteenPerNode(String dataset) throws IOException {
        MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        long before = usedAfterGc(memory);
        long started = System.nanoTime();
        CsrGraph graph = GraphLoader.load(SharedData.graph(dataset), EdgeDirection.OUT);
        double seconds = (System.nanoTime() - started) / 1e9;
        long retained = usedAfterGc(memory) - before;

        long edges = graph.numEdges();
        long nodes = graph.numNodes();
        assertThat(graph.hasWeights()).isFalse();
        assertThat(graph.hasTimestamps()).isFalse();
        assertThat(graph.heapBytes()).isLessThanOrEqualTo(6 * edges + 16 * nodes);
        // No slack left in the arrays (e.g. an untrimmed staging buffer reused as the target array).
        assertThat(graph.targets()).hasSize(graph.numEdges());
        assertThat(graph.offsets()).hasSize(graph.numNodes() + 1);
        System.out.printf(Locale.ROOT,
                "%s: %d nodes, %d edges, loaded in %.3f s (%.1f M edges/s); heapBytes %d = %.2f B/edge;"
                        + " measured retained %d = %.2f B/edge%n",
                dataset, nodes, edges, seconds, edges / seconds / 1e6, graph.heapBytes(),
                graph.heapBytes() / (double) edges, retained, retained / (double) edges);
        assertThat(graph.numEdges()).isPositive(); // keeps the graph reachable until after the measurement
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"college_msg", "bitcoin_alpha"})
    void weightsAndTimestampsCostFourAndEightBytesPerEdge(String dataset) throws IOException {
        CsrGraph graph = GraphLoader.load(SharedData.graph(dataset), EdgeDirection.OUT);
        long edges = graph.numEdges();
        long nodes = graph.numNodes();
        long plain = 16 + 4 * edges + 16 + 4 * (nodes + 1) + 32;
        assertThat(graph.heapBytes()).isEqualTo(plain + (16 + 4 * edges) + (16 + 8 * edges));
        System.out.printf(Locale.ROOT, "%s: %d edges with weights and timestamps: heapBytes %d = %.2f B/edge%n",
                dataset, edges, graph.heapBytes(), graph.heapBytes() / (double) edges);
    }

    private static long usedAfterGc(MemoryMXBean memory) {
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        return memory.getHeapMemoryUsage().getUsed();
    }
}
