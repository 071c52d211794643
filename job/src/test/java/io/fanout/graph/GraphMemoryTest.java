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
 * The store's heap budget: at most 6 bytes per edge plus 16 per node for a graph without weights or timestamps,
 * asserted on the heap a load really retains (used heap after full GCs, before and after); {@link
 * CsrGraph#heapBytes()} (the arrays alone, what logs report) is a lower bound of that measurement.
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
        // GC accounting is exact to a region or a TLAB, not to a byte: allow 256 KiB either way, which matters
        // only for the two small graphs (cora's whole store is 53 KB: there the budget check is what counts).
        long slack = 256 << 10;
        assertThat(retained).as("measured retained heap within the budget")
                .isLessThanOrEqualTo(6 * edges + 16 * nodes + slack);
        // heapBytes counts the arrays; the measurement also counts what the collector rounds them up to (G1 puts
        // each large array in whole regions), so the arrays are a lower bound of what the load retains.
        assertThat(graph.heapBytes()).as("the store's arrays are really retained")
                .isLessThanOrEqualTo(retained + slack);
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
