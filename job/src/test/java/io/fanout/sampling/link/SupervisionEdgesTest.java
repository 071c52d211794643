package io.fanout.sampling.link;

import static org.assertj.core.api.Assertions.assertThat;

import io.fanout.features.FeatureDType;
import io.fanout.graph.EdgeDirection;
import io.fanout.graph.typed.EdgeType;
import io.fanout.sampling.hetero.TypedReference;
import io.fanout.store.GraphSpec;
import io.fanout.store.TypedGraphStore;
import io.fanout.testing.AblpGraphs;
import io.fanout.testing.SharedData;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link SupervisionEdges} and {@link AnchorLabels} on real graphs: each anchor's labels are exactly its label edges
 * in the files, the same whichever direction the graph was loaded in, and a batch's [B, P] matrix and seeds are
 * GiGL's layout.
 */
class SupervisionEdgesTest {
    @TempDir
    Path tmp;

    /** anchor id -> its distinct label node ids, from the file. */
    private static Map<Long, TreeSet<Long>> byAnchor(TypedReference.TypeEdges edges) {
        Map<Long, TreeSet<Long>> out = new TreeMap<>();
        for (long[] e : edges.rows) {
            out.computeIfAbsent(e[0], k -> new TreeSet<>()).add(e[1]);
        }
        return out;
    }

    @Test
    void labelsOfEveryAnchorAreItsLabelEdgesInBothDirectionsAcrossTwoNodeTypes() throws Exception {
        // cora_hetero's paper -> word edges stand in for a supervision type between two node types.
        Path cora = SharedData.graph("cora_hetero");
        EdgeType hasWord = EdgeType.parse("paper__has_word__word");
        Map<Long, TreeSet<Long>> expected = byAnchor(TypedReference.read(cora).types.get(hasWord));
        for (EdgeDirection direction : EdgeDirection.values()) {
            TypedGraphStore store = TypedGraphStore.load(new GraphSpec(cora.toString(), direction, null,
                    FeatureDType.FLOAT32, false));
            SupervisionEdges edges = SupervisionEdges.of(store.adjacency().get(hasWord), 2708);
            int total = 0;
            for (int a = 0; a < 2708; a++) {
                TreeSet<Long> want = expected.getOrDefault(store.nodeIds("paper").id(a), new TreeSet<>());
                TreeSet<Long> got = new TreeSet<>();
                for (int w : edges.labels(a)) {
                    got.add(store.nodeIds("word").id(w));
                }
                assertThat(got).as("%s: words of paper %d", direction, a).isEqualTo(want);
                total += want.size();
            }
            assertThat(edges.numEdges()).isEqualTo(total);
            assertThat(edges.anchors()).hasSize((int) expected.keySet().size());
        }
    }

    @Test
    void aBatchGetsPaddedLabelRowsAndSamplesAroundItsLabelNodes() throws Exception {
        Path graph = AblpGraphs.bitcoin(tmp.resolve("g"));
        TypedGraphStore store = TypedGraphStore.load(new GraphSpec(graph.toString(), EdgeDirection.IN, null,
                FeatureDType.FLOAT32, false));
        EdgeType pos = EdgeType.parse(AblpGraphs.POSITIVE);
        EdgeType neg = EdgeType.parse(AblpGraphs.NEGATIVE);
        SupervisionEdges positives = SupervisionEdges.of(store.adjacency().get(pos), 3783);
        SupervisionEdges negatives = SupervisionEdges.of(store.adjacency().get(neg), 3783);
        assertThat(negatives.firstSharedEdge(positives)).isNull();
        int[] anchors = java.util.Arrays.copyOf(positives.anchors(), 40);
        AnchorLabels labels = AnchorLabels.of(anchors, positives, negatives);
        int width = 0;
        for (int a : anchors) {
            width = Math.max(width, positives.numLabels(a));
        }
        assertThat(labels.positiveWidth).isEqualTo(width);
        assertThat(labels.negativeWidth).isEqualTo(2);
        int labelNodes = 0;
        for (int i = 0; i < anchors.length; i++) {
            int[] row = java.util.Arrays.copyOfRange(labels.positive, i * width, (i + 1) * width);
            int[] want = positives.labels(anchors[i]);
            assertThat(java.util.Arrays.copyOf(row, want.length)).containsExactly(want);
            for (int k = want.length; k < width; k++) {
                assertThat(row[k]).isEqualTo(AnchorLabels.PADDING);
            }
            labelNodes += want.length + 2;
        }
        // One node type: the seeds are the anchors, then every label node (GiGL's nodes_to_sample).
        assertThat(labels.seeds).containsOnlyKeys("user");
        int[] seeds = labels.seeds.get("user");
        assertThat(seeds).hasSize(anchors.length + labelNodes);
        assertThat(java.util.Arrays.copyOf(seeds, anchors.length)).containsExactly(anchors);
    }

    /**
     * A plain graph's label-edge file (karate): ids of the graph's nodes, a label edge given twice counts
     * once, each anchor's labels ascending; a row naming a node outside the graph fails naming the file and line.
     */
    @Test
    void aPlainLabelFileIsReadAgainstTheGraphsIds() throws Exception {
        io.fanout.graph.NodeIdMap ids = io.fanout.store.GraphStore.scanNodeIds(new GraphSpec(
                SharedData.graph("karate").toString(), EdgeDirection.OUT, null, FeatureDType.FLOAT32, false));
        java.nio.file.Path file = java.nio.file.Files.writeString(tmp.resolve("labels.tsv"),
                "# anchor\tlabel\n5\t9\n5 2\n5\t9\n\n30\t0\n");
        SupervisionEdges labels = SupervisionEdges.read(file, ids, SupervisionEdges.HOMOGENEOUS_POSITIVE);
        assertThat(labels.numEdges()).isEqualTo(3);
        assertThat(labels.labels(ids.indexOf(5))).containsExactly(ids.indexOf(2), ids.indexOf(9));
        assertThat(labels.anchors()).containsExactly(ids.indexOf(5), ids.indexOf(30));
        assertThat(labels.type().toString())
                .isEqualTo("default_homogeneous_node_type__to_gigl_positive__default_homogeneous_node_type");
        java.nio.file.Path bad = java.nio.file.Files.writeString(tmp.resolve("bad.tsv"), "1\t2\n3\t4\t5\n");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> SupervisionEdges.read(bad, ids,
                SupervisionEdges.HOMOGENEOUS_POSITIVE)).hasMessageContaining("bad.tsv").hasMessageContaining("line 2");
        java.nio.file.Path outside = java.nio.file.Files.writeString(tmp.resolve("outside.tsv"), "1\t2\n3\t34\n");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> SupervisionEdges.read(outside, ids,
                SupervisionEdges.HOMOGENEOUS_POSITIVE)).hasMessageContaining("line 2").hasMessageContaining("node 34");
    }
}
