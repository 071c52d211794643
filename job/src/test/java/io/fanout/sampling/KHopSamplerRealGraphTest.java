package io.fanout.sampling;

import static org.assertj.core.api.Assertions.assertThat;

import io.fanout.graph.CsrGraph;
import io.fanout.graph.EdgeDirection;
import io.fanout.graph.GraphLoader;
import io.fanout.testing.SharedData;
import java.io.IOException;
import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** {@link KHopSampler} on the shared real graphs, fanout [15, 10], batches of 512 seeds. */
class KHopSamplerRealGraphTest {
    private static final int[] FANOUTS = {15, 10};
    private static final int BATCH_SIZE = 512;

    @ParameterizedTest(name = "{0} {1} replace={2}")
    @CsvSource({
        "cora, OUT, false",
        "cora, OUT, true",
        "ego_twitter_u, OUT, false",
        "cora_cites, IN, false",
        "cora_cites, OUT, true",
    })
    void invariantsHoldOnRealGraphs(String name, EdgeDirection direction, boolean replace) throws IOException {
        CsrGraph graph = GraphLoader.load(SharedData.graph(name), direction);
        KHopSampler sampler = new KHopSampler(graph, FANOUTS, replace);
        SplittableRandom random = new SplittableRandom(name.hashCode());
        for (int batch = 0; batch < 3; batch++) {
            int[] seeds = new int[BATCH_SIZE];
            for (int i = 0; i < BATCH_SIZE; i++) {
                seeds[i] = random.nextInt(graph.numNodes());
            }
            SampledSubgraph s = sampler.sample(seeds, 1234, 0, batch);
            SampleInvariants.check(graph, FANOUTS, replace, seeds, s);
            KHopSamplerTest.assertSame(s, new KHopSampler(graph, FANOUTS, replace).sample(seeds, 1234, 0, batch));
            assertThat(s.numSampledEdges()[1]).as("hop 2 sampled edges").isPositive();
            // De-dup really bit: some sampled edges point to nodes already in the batch.
            assertThat(s.rows().length).isGreaterThan(s.ids().length - s.numSampledNodes()[0]);
        }
    }
}
