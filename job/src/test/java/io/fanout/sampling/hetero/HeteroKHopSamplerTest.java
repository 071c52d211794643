package io.fanout.sampling.hetero;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.features.FeatureDType;
import io.fanout.graph.EdgeDirection;
import io.fanout.graph.typed.EdgeType;
import io.fanout.store.GraphSpec;
import io.fanout.store.TypedGraphStore;
import io.fanout.testing.SharedData;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@link HeteroKHopSampler}, {@link TypedFanouts} and {@link EdgeType} on their own (no Flink). */
class HeteroKHopSamplerTest {
    private static TypedGraphStore cora(EdgeDirection direction) throws Exception {
        return TypedGraphStore.load(new GraphSpec(SharedData.graph("cora_hetero").toString(), direction, null,
                FeatureDType.FLOAT32, false));
    }

    @Test
    void reversedEdgeTypesFollowGlt() {
        assertThat(EdgeType.parse("paper__has_word__word").reversed()).hasToString("word__rev_has_word__paper");
        assertThat(EdgeType.parse("word__rev_has_word__paper").reversed()).hasToString("paper__has_word__word");
        assertThat(EdgeType.parse("paper__cites__paper").reversed()).hasToString("paper__cites__paper");
        assertThatThrownBy(() -> EdgeType.parse("paper__cites")).hasMessageContaining("paper__cites");
    }

    @Test
    void fanoutsPerTypeOrOneListForAll() {
        List<EdgeType> types = List.of(EdgeType.parse("a__r__b"), EdgeType.parse("b__s__a"));
        assertThat(TypedFanouts.parse("3,2").resolve(types)).containsOnlyKeys("a__r__b", "b__s__a");
        Map<String, int[]> perType = TypedFanouts.parse(" a__r__b : 3,0 ; b__s__a:-1,1").resolve(types);
        assertThat(perType.get("a__r__b")).containsExactly(3, 0);
        assertThat(perType.get("b__s__a")).containsExactly(-1, 1);
        assertThatThrownBy(() -> TypedFanouts.parse("a__r__b:3,2;b__s__a:1")).hasMessageContaining("same number of hops");
        assertThatThrownBy(() -> TypedFanouts.parse("a__r__b:3").resolve(types)).hasMessageContaining("b__s__a");
        assertThatThrownBy(() -> TypedFanouts.parse("a__r__b:3;b__s__a:1;x__y__z:1").resolve(types))
                .hasMessageContaining("no edge type x__y__z");
        assertThatThrownBy(() -> TypedFanouts.parse("a__r__b:3,-2")).hasMessageContaining("-2");
    }

    @Test
    void typedStoreHoldsEveryTypeWithLabelsForPapersOnly() throws Exception {
        TypedGraphStore store = cora(EdgeDirection.OUT);
        assertThat(store.nodeIds("paper").size()).isEqualTo(2708);
        assertThat(store.nodeIds("word").size()).isEqualTo(1433);
        assertThat(store.features("paper").hasLabels()).isTrue();
        assertThat(store.features("word")).isNull();
        assertThat(store.numEdges()).isEqualTo(2 * 5278 + 49216);
        TypedGraphStore in = cora(EdgeDirection.IN);
        assertThat(in.adjacency().get(EdgeType.parse("paper__has_word__word")).keyType()).isEqualTo("word");
    }

    @Test
    void sameBatchSameSampleFromAnyInstanceAndEdgeTypesDrawIndependently() throws Exception {
        TypedGraphStore store = cora(EdgeDirection.OUT);
        Map<String, int[]> fanouts = TypedFanouts.parse("3,2").resolve(store.adjacency().keySet());
        int[] seeds = {0, 5, 9, 5, 2000};
        HeteroSubgraph a = new HeteroKHopSampler(store.adjacency(), store.nodeIds(), fanouts, "paper", false, false)
                .sample(seeds, 7, 0, 3);
        HeteroKHopSampler other = new HeteroKHopSampler(store.adjacency(), store.nodeIds(), fanouts, "paper", false,
                false);
        other.sample(new int[] {1, 2, 3}, 7, 0, 2); // an earlier batch leaves nothing behind
        HeteroSubgraph b = other.sample(seeds, 7, 0, 3);
        assertThat(b.nodes.get("paper").indices).containsExactly(a.nodes.get("paper").indices);
        assertThat(b.nodes.get("word").indices).containsExactly(a.nodes.get("word").indices);
        assertThat(a.nodes.get("paper").numSampledNodes[0]).isEqualTo(4); // duplicates expanded once
        HeteroSubgraph c = other.sample(seeds, 8, 0, 3);
        assertThat(c.nodes.get("word").indices).isNotEqualTo(a.nodes.get("word").indices);
        assertThatThrownBy(() -> other.sample(new int[] {2708}, 7, 0, 0)).hasMessageContaining("type paper");
    }
}
