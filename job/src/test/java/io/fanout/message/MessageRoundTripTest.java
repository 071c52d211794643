package io.fanout.message;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.batch.BatchPlan;
import io.fanout.batch.SeedBatch;
import io.fanout.batch.SeedSet;
import io.fanout.batch.TrainerShares;
import io.fanout.connectors.message.DType;
import io.fanout.connectors.message.MessageKeys;
import io.fanout.connectors.message.SafetensorsCodec;
import io.fanout.connectors.message.SamplingErrors;
import io.fanout.connectors.message.Tensor;
import io.fanout.connectors.message.TensorMessage;
import io.fanout.features.FeatureDType;
import io.fanout.graph.EdgeDirection;
import io.fanout.graph.typed.EdgeType;
import io.fanout.message.MessageDecoder.Decoded;
import io.fanout.sampling.KHopSampler;
import io.fanout.sampling.SampledSubgraph;
import io.fanout.sampling.hetero.HeteroKHopSampler;
import io.fanout.sampling.hetero.HeteroSubgraph;
import io.fanout.sampling.hetero.TypedFanouts;
import io.fanout.sampling.link.NegativeSampling;
import io.fanout.sampling.ppr.PprSampler;
import io.fanout.sampling.ppr.PprSubgraph;
import io.fanout.sampling.ppr.TypedPprSampler;
import io.fanout.sampling.ppr.TypedPprSubgraph;
import io.fanout.store.GraphSpec;
import io.fanout.store.GraphStore;
import io.fanout.store.TypedGraphStore;
import io.fanout.testing.SharedData;
import java.util.Arrays;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The message layer's encoder and decoder on samples of real graphs (cora, cora_hetero): every kind of sample
 * decodes to the parts it was built from and encodes back to the same bytes, and a sample built from a memory
 * store's sampler and one built from the same data already gathered (as the partitioned store has it) are the same
 * bytes.
 */
class MessageRoundTripTest {
    private static final SeedBatch BATCH = new SeedBatch(2, 5, 9, new int[] {0, 5, 9, 2000}, new int[] {7, 1, 3, 0});

    private static GraphStore cora(FeatureDType dtype) throws Exception {
        return GraphStore.load(new GraphSpec(SharedData.graph("cora").resolve("edges.tsv").toString(),
                EdgeDirection.OUT, SharedData.graph("cora").resolve("nodes.tsv.gz").toString(), dtype, true));
    }

    private static TypedGraphStore coraHetero() throws Exception {
        return TypedGraphStore.load(new GraphSpec(SharedData.graph("cora_hetero").toString(), EdgeDirection.OUT, null,
                FeatureDType.FLOAT32, true));
    }

    /** Encodes, decodes, and checks the bytes of the decoded parts are the original bytes. */
    private static Decoded roundTrip(Sample sample, BatchHeader header, TrainerShares shares) {
        byte[] bytes = MessageEncoder.encode(sample, header, shares);
        Decoded back = MessageDecoder.decode(bytes);
        assertThat(MessageEncoder.encode(back.sample(), back.header(), shares)).as("re-encoded").isEqualTo(bytes);
        assertThat(back.sample().hetero()).isEqualTo(sample.hetero());
        assertThat(back.header().epoch()).isEqualTo(header.epoch());
        assertThat(back.header().batchId()).isEqualTo(header.batchId());
        assertThat(back.header().numBatches()).isEqualTo(header.numBatches());
        assertThat(back.header().inputIds()).isEqualTo(header.inputIds());
        assertThat(back.header().seedIds()).isEqualTo(header.seedIds());
        return back;
    }

    private static SampledSubgraph kHop(GraphStore store) {
        return new KHopSampler(store.adjacency(), store.ids(), new int[] {4, 3}, false, true)
                .sampleShared(BATCH.seeds, 11, BATCH.epoch, BATCH.batchId);
    }

    @Test
    void homogeneousKHopWithFloatFeaturesLabelsAndEdgeIds() throws Exception {
        GraphStore store = cora(FeatureDType.FLOAT32);
        SampledSubgraph sub = kHop(store);
        HomogeneousSample sample = HomogeneousSample.kHop(sub, store, true);
        HomogeneousSample back = (HomogeneousSample) roundTrip(sample, BatchHeader.of(BATCH, store.ids()), null).sample();
        int n = sub.numNodes();
        assertThat(back.ids().asLongArray()).hasSize(n).isEqualTo(sample.ids().asLongArray());
        assertThat(back.rows()).isEqualTo(sample.rows());
        assertThat(back.cols()).isEqualTo(sample.cols());
        assertThat(back.numSampledNodes().asLongArray()).hasSize(3);
        assertThat(back.numSampledEdges().asLongArray()).hasSize(2);
        assertThat(back.nodeData().nfeats().dtype()).isEqualTo(DType.F32);
        assertThat(back.nodeData().nfeats().shape()).containsExactly(n, store.features().dim());
        assertThat(back.nodeData().nfeats()).isEqualTo(sample.nodeData().nfeats());
        assertThat(back.nodeData().scale()).isNull();
        assertThat(back.nodeData().labels().asLongArray()).isEqualTo(store.features().gatherLabels(sub.idsBuffer(), n));
        assertThat(back.edgeData().eids().asLongArray()).hasSize(sub.numEdges());
        assertThat(back.pprEdgeIndex()).isNull();
    }

    @Test
    void uint8FeaturesCarryTheirScaleAndOffsetAndTrainerSharesTagTheMessage() throws Exception {
        GraphStore store = cora(FeatureDType.UINT8);
        SampledSubgraph sub = kHop(store);
        TrainerShares two = TrainerShares.of(new BatchPlan(SeedSet.allNodes(100), 30, false, false, 1, 1, 2, 0));
        Decoded back = roundTrip(HomogeneousSample.kHop(sub, store, true), BatchHeader.of(BATCH, store.ids()), two);
        NodeData data = ((HomogeneousSample) back.sample()).nodeData();
        int dim = store.features().dim();
        assertThat(data.nfeats().dtype()).isEqualTo(DType.U8);
        assertThat(data.nfeats().shape()).containsExactly(sub.numNodes(), dim);
        assertThat(data.scale().asFloatArray()).isEqualTo(store.features().scale());
        assertThat(data.offset().asFloatArray()).isEqualTo(store.features().offset());
        assertThat(back.trainers()).isEqualTo(2);
        TensorMessage m = MessageEncoder.message(back.sample(), back.header(), two);
        assertThat(m.names()).contains(MessageKeys.META_NFEATS_SCALE, MessageKeys.META_NFEATS_OFFSET,
                MessageKeys.META_TRAINERS, MessageKeys.META_PADDED);
    }

    @Test
    void theMemoryStoresSampleAndTheSameDataAlreadyGatheredAreTheSameBytes() throws Exception {
        GraphStore store = cora(FeatureDType.UINT8);
        SampledSubgraph sub = kHop(store);
        HomogeneousSample memory = HomogeneousSample.kHop(sub, store, false);
        memory.edgeData(null); // the partitioned store keeps no edge ids
        int n = sub.numNodes();
        int m = sub.numEdges();
        HomogeneousSample gathered = HomogeneousSample.kHop(memory.ids().asLongArray(),
                Arrays.copyOf(sub.rowsBuffer(), m), Arrays.copyOf(sub.colsBuffer(), m), sub.numSampledNodes(),
                sub.numSampledEdges());
        gathered.nodeData(NodeData.of(FeatureDType.UINT8, store.features().dim(), n,
                store.features().gatherRows(sub.idsBuffer(), n), store.features().scale(), store.features().offset(),
                store.features().gatherLabels(sub.idsBuffer(), n)));
        long[] seedIds = BatchHeader.of(BATCH, store.ids()).seedIds().asLongArray();
        BatchHeader partitioned = BatchHeader.of(seedIds, BATCH.inputIds, BATCH.epoch, BATCH.batchId, BATCH.numBatches);
        assertThat(MessageEncoder.encode(gathered, partitioned, TrainerShares.ONE))
                .isEqualTo(MessageEncoder.encode(memory, BatchHeader.of(BATCH, store.ids()), null));
    }

    @Test
    void homogeneousPpr() throws Exception {
        GraphStore store = cora(FeatureDType.FLOAT32);
        PprSubgraph ppr = new PprSampler(store.adjacency(), store.ids().idsOrNull(), 0.5, 1e-4, 10, -1, true, 3)
                .sample(BATCH.seeds);
        HomogeneousSample back = (HomogeneousSample) roundTrip(HomogeneousSample.ppr(ppr, store),
                BatchHeader.of(BATCH, store.ids()), null).sample();
        assertThat(back.rows().numElements()).isZero();
        assertThat(back.numSampledNodes()).isNull();
        assertThat(back.pprEdgeIndex().shape()).containsExactly(2, ppr.numEdges());
        assertThat(back.pprEdgeAttr().shape()).containsExactly(ppr.numEdges(), 2);
        assertThat(back.pprEdgeAttr().asDoubleArray()).isEqualTo(ppr.edgeAttr());
        assertThat(back.nodeData().labels().numElements()).isEqualTo(ppr.ids().length);
    }

    @Test
    void typedKHopWithNodeDataPerTypeAndTheSeedTypesLabels() throws Exception {
        TypedGraphStore store = coraHetero();
        Map<String, int[]> fanouts = TypedFanouts.parse("3,2").resolve(store.adjacency().keySet());
        HeteroSubgraph sub = new HeteroKHopSampler(store.adjacency(), store.nodeIds(), fanouts, "paper", false, true)
                .sample(BATCH.seeds, 7, BATCH.epoch, BATCH.batchId);
        TypedSample sample = TypedSample.kHop(sub, store, "paper");
        sample.metadata().seedTime(new long[] {4, 3, 2, 1});
        TypedSample back = (TypedSample) roundTrip(sample, BatchHeader.of(BATCH, store.nodeIds("paper")), null)
                .sample();
        assertThat(back.seedType()).isEqualTo("paper");
        assertThat(back.nodes().keySet()).containsExactly("paper", "word");
        assertThat(back.nodes().get("paper").data().labels()).isNotNull();
        assertThat(back.nodes().get("word").data() == null || back.nodes().get("word").data().labels() == null)
                .as("only the seed type's labels").isTrue();
        assertThat(back.nodes().get("paper").ids()).isEqualTo(sample.nodes().get("paper").ids());
        assertThat(back.edges().keySet()).isEqualTo(sample.edges().keySet()).isNotEmpty();
        for (String type : sample.edges().keySet()) {
            assertThat(back.edges().get(type).rows()).as(type).isEqualTo(sample.edges().get(type).rows());
            assertThat(back.edges().get(type).data().eids()).as(type).isEqualTo(sample.edges().get(type).data().eids());
        }
        assertThat(back.metadata().seedTime().asLongArray()).containsExactly(4, 3, 2, 1);
    }

    @Test
    void typedPprWithSampledEdges() throws Exception {
        TypedGraphStore store = coraHetero();
        TypedPprSubgraph ppr = new TypedPprSampler(store.adjacency(), store.nodeIds(), "paper", null, 0.5, 1e-4, 10,
                -1, true, true, 3).sample(BATCH.seeds);
        TypedSample sample = TypedSample.ppr(ppr, store);
        TypedSample back = (TypedSample) roundTrip(sample, BatchHeader.of(BATCH, store.nodeIds("paper")), null)
                .sample();
        assertThat(back.pprEdges().keySet()).containsExactlyElementsOf(sample.pprEdges().keySet())
                .contains(TypedPprSubgraph.pprEdgeType("paper", "word"));
        for (Map.Entry<String, TypedSample.PprEdges> e : sample.pprEdges().entrySet()) {
            assertThat(back.pprEdges().get(e.getKey())).as(e.getKey()).isEqualTo(e.getValue());
        }
        assertThat(back.edges()).isNotEmpty();
        assertThat(back.nodes().get("paper").numSampledNodes().asLongArray())
                .containsExactly(ppr.nodes.get("paper").length);
    }

    @Test
    void linkLabelsBinaryAndTripletAndTheLinkMetadata() {
        // Two positives, four negatives: binary (labels 1 then 0) and triplet (two negatives per positive).
        int[] src = {0, 1, 2, 3, 0, 1};
        int[] dst = {4, 5, 6, 7, 8, 9};
        HomogeneousSample binary = small();
        binary.metadata().linkLabels(SampleMetadata.LinkLabels.of(NegativeSampling.BINARY, 2, 2, src, dst))
                .edgeLabelTime(new long[] {10, 20, 10, 20, 10, 20});
        BatchHeader header = new BatchHeader(null, null, 0, 1, 2);
        SampleMetadata b = roundTrip(binary, header, null).sample().metadata();
        assertThat(b.linkLabels().edgeLabelIndex().shape()).containsExactly(2, 6);
        assertThat(b.linkLabels().edgeLabelIndex().asLongArray()).containsExactly(0, 1, 2, 3, 0, 1, 4, 5, 6, 7, 8, 9);
        assertThat(b.linkLabels().edgeLabel().asFloatArray()).containsExactly(1f, 1f, 0f, 0f, 0f, 0f);
        assertThat(b.edgeLabelTime().asLongArray()).containsExactly(10, 20, 10, 20, 10, 20);

        int[] tSrc = {0, 1};
        HomogeneousSample triplet = small();
        triplet.metadata().linkLabels(SampleMetadata.LinkLabels.of(NegativeSampling.TRIPLET, 2, 2, tSrc, dst));
        SampleMetadata t = roundTrip(triplet, header, null).sample().metadata();
        assertThat(t.linkLabels().edgeLabelIndex()).isNull();
        assertThat(t.linkLabels().srcIndex().asLongArray()).containsExactly(0, 1);
        assertThat(t.linkLabels().dstPosIndex().asLongArray()).containsExactly(4, 5);
        assertThat(t.linkLabels().dstNegIndex().shape()).containsExactly(2, 2);
        assertThat(t.linkLabels().dstNegIndex().asLongArray()).containsExactly(6, 7, 8, 9);

        TypedSample typed = new TypedSample(null).nodes("user", new long[] {3, 4}, new int[] {2}, null, null)
                .edges("user__follows__user", new int[] {0}, new int[] {1}, new int[] {1});
        typed.metadata().linkLabels(SampleMetadata.LinkLabels.of(NegativeSampling.NONE, 1, 0, new int[] {0},
                new int[] {1})).inputType("user__follows__user").graphVersion(6);
        Decoded back = roundTrip(typed, header, null);
        assertThat(back.sample().metadata().inputType()).isEqualTo("user__follows__user");
        assertThat(back.sample().metadata().graphVersion()).isEqualTo(6L);
        assertThat(back.sample().metadata().linkLabels().edgeLabel()).isNull();
    }

    @Test
    void ablpLabelNodesKeepTheirPadding() throws Exception {
        GraphStore store = cora(FeatureDType.FLOAT32);
        HomogeneousSample sample = small();
        EdgeType positive = new EdgeType("paper", "to", "paper");
        sample.metadata().positiveLabels(SampleMetadata.LabelNodes.of(positive.toString(), store.ids(),
                new int[] {3, 4, 5, -1}, 2, 2));
        SampleMetadata back = roundTrip(sample, BatchHeader.of(BATCH, store.ids()), null).sample().metadata();
        assertThat(back.positiveLabels().edgeType()).isEqualTo(positive.toString());
        assertThat(back.positiveLabels().ids().shape()).containsExactly(2, 2);
        assertThat(back.positiveLabels().ids().asLongArray()).containsExactly(store.ids().id(3), store.ids().id(4),
                store.ids().id(5), -1);
        assertThat(back.negativeLabels()).isNull();
    }

    @Test
    void theDecoderRefusesKeysNoSampleHoldsAndSamplingErrors() {
        TensorMessage m = MessageEncoder.message(small(), new BatchHeader(Tensor.ofInt64(new long[] {1}), null, 0, 0, 1),
                null);
        m.putInt64("#META.something_else", new long[] {1});
        assertThatThrownBy(() -> MessageDecoder.decode(m)).hasMessageContaining("#META.something_else");
        byte[] error = MessageEncoder.samplingError(0, 3, 4, "trace", null);
        assertThat(SamplingErrors.isSamplingError(error)).isTrue();
        assertThatThrownBy(() -> MessageDecoder.decode(SafetensorsCodec.decode(error)))
                .hasMessageContaining(MessageKeys.SAMPLING_ERROR);
    }

    /** A two-node, one-edge sample. */
    private static HomogeneousSample small() {
        return HomogeneousSample.kHop(new long[] {10, 11}, new int[] {0}, new int[] {1}, new int[] {1, 1},
                new int[] {1});
    }
}
