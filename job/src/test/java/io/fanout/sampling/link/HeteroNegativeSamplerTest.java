package io.fanout.sampling.link;

import static org.assertj.core.api.Assertions.assertThat;

import io.fanout.features.FeatureDType;
import io.fanout.graph.EdgeDirection;
import io.fanout.graph.typed.EdgeType;
import io.fanout.sampling.hetero.TypedReference;
import io.fanout.store.GraphSpec;
import io.fanout.store.TypedGraphStore;
import io.fanout.testing.SharedData;
import org.junit.jupiter.api.Test;

/** {@link NegativeSampler} on cora_hetero in both directions: strict, reproducible, the same either way. */
class HeteroNegativeSamplerTest {
    @Test
    void negativesAreNeverEdgesAndDependOnTheBatchOnly() throws Exception {
        TypedReference ref = TypedReference.read(SharedData.graph("cora_hetero"));
        EdgeType hasWord = EdgeType.parse("paper__has_word__word");
        int[][][] binary = new int[2][][];
        int[][] triplet = new int[2][];
        int d = 0;
        for (EdgeDirection direction : EdgeDirection.values()) {
            TypedGraphStore store = TypedGraphStore.load(new GraphSpec(SharedData.graph("cora_hetero").toString(),
                    direction, null, FeatureDType.FLOAT32, false));
            NegativeSampler sampler = new NegativeSampler(store.adjacency().get(hasWord), 2708, 1433);
            // isEdge agrees with the file in both directions (paper 0 has word 19, see the file's first row).
            assertThat(sampler.isEdge(0, 19)).isTrue();
            for (int p = 0; p < 50; p++) {
                for (int w = 0; w < 50; w++) {
                    assertThat(sampler.isEdge(p, w)).isEqualTo(ref.types.get(hasWord).has(p, w));
                }
            }
            sampler.binary(10, 1, 0, 0); // an earlier batch leaves nothing behind
            binary[d] = sampler.binary(3000, 7, 1, 2);
            triplet[d] = sampler.triplet(new int[] {0, 1, 2, 0}, 5, 7, 1, 2);
            for (int i = 0; i < 3000; i++) {
                assertThat(ref.types.get(hasWord).has(binary[d][0][i], binary[d][1][i])).isFalse();
            }
            for (int i = 0; i < triplet[d].length; i++) {
                assertThat(ref.types.get(hasWord).has(new int[] {0, 1, 2, 0}[i / 5], triplet[d][i])).isFalse();
            }
            d++;
        }
        assertThat(binary[0][0]).containsExactly(binary[1][0]);
        assertThat(binary[0][1]).containsExactly(binary[1][1]);
        assertThat(triplet[0]).containsExactly(triplet[1]);
    }
}
