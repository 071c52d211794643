package io.fanout.job;

import static io.fanout.job.FanoutJobITCase.assertSameMessages;
import static io.fanout.job.FanoutJobITCase.readMessages;
import static io.fanout.job.FanoutJobITCase.runJob;
import static org.assertj.core.api.Assertions.assertThat;

import io.fanout.connectors.message.DType;
import io.fanout.connectors.message.MessageKeys;
import io.fanout.connectors.message.SafetensorsCodec;
import io.fanout.connectors.message.TensorMessage;
import io.fanout.connectors.message.Tensor;
import io.fanout.features.Float16;
import io.fanout.features.NodeFileReaderTest;
import io.fanout.testing.MiniClusters;
import io.fanout.testing.SharedData;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Node features and labels, edge ids and sparse int64 ids in the messages of the real job (MiniCluster),
 * checked row by row against the input files read independently.
 */
class NodeFeaturesJobITCase {
    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = MiniClusters.oneTaskManagerTwoSlots();

    @TempDir
    Path tmp;

    /** id -> {label, f0, f1, ...} of a node file, read with a plain split. */
    private static Map<Long, float[]> referenceNodes(Path file) throws Exception {
        Map<Long, float[]> out = new HashMap<>();
        for (String[] row : NodeFileReaderTest.referenceRows(file)) {
            float[] values = new float[row.length - 1];
            for (int i = 1; i < row.length; i++) {
                values[i - 1] = Float.parseFloat(row[i]);
            }
            out.put(Long.parseLong(row[0]), values);
        }
        return out;
    }

    /** The nfeats tensor of a message as floats, dequantised as the client does. */
    private static float[] features(TensorMessage m) {
        Tensor t = m.require(MessageKeys.NFEATS);
        ByteBuffer bytes = ByteBuffer.wrap(t.asByteArray()).order(ByteOrder.LITTLE_ENDIAN);
        int n = (int) t.shape()[0];
        int dim = (int) t.shape()[1];
        float[] out = new float[n * dim];
        float[] scale = m.contains(MessageKeys.META_NFEATS_SCALE) ? m.get(MessageKeys.META_NFEATS_SCALE).asFloatArray() : null;
        float[] offset = m.contains(MessageKeys.META_NFEATS_OFFSET) ? m.get(MessageKeys.META_NFEATS_OFFSET).asFloatArray() : null;
        for (int i = 0; i < out.length; i++) {
            switch (t.dtype()) {
                case F32:
                    out[i] = bytes.getFloat(4 * i);
                    break;
                case F16:
                    out[i] = Float16.toFloat(bytes.getShort(2 * i));
                    break;
                case U8:
                    out[i] = offset[i % dim] + scale[i % dim] * (bytes.get(i) & 0xff);
                    break;
                default:
                    throw new AssertionError("unexpected nfeats dtype " + t.dtype());
            }
        }
        return out;
    }

    /** Every message's nfeats row and nlabels entry equal the node file's for that id. */
    private static void assertNodeDataMatches(TreeMap<Long, byte[]> messages, Map<Long, float[]> nodes, int dim,
            DType dtype) {
        assertThat(messages).isNotEmpty();
        for (byte[] blob : messages.values()) {
            TensorMessage m = SafetensorsCodec.decode(blob);
            long[] ids = m.get(MessageKeys.IDS).asLongArray();
            long[] labels = m.get(MessageKeys.NLABELS).asLongArray();
            assertThat(labels).hasSameSizeAs(ids);
            if (dim == 0) {
                assertThat(m.contains(MessageKeys.NFEATS)).isFalse();
            } else {
                assertThat(m.get(MessageKeys.NFEATS).dtype()).isEqualTo(dtype);
                assertThat(m.get(MessageKeys.NFEATS).shape()).containsExactly(ids.length, dim);
            }
            float[] feats = dim == 0 ? new float[0] : features(m);
            for (int i = 0; i < ids.length; i++) {
                float[] expected = nodes.get(ids[i]);
                assertThat(expected).as("node %d is in the node file", ids[i]).isNotNull();
                assertThat(labels[i]).as("label of node %d", ids[i]).isEqualTo((long) expected[0]);
                for (int c = 0; c < dim; c++) {
                    assertThat(feats[i * dim + c]).as("feature %d of node %d", c, ids[i]).isEqualTo(expected[1 + c]);
                }
            }
        }
    }

    @Test
    void coraFeaturesAndLabelsInEveryMessageIdenticalAtParallelismOneAndTwo() throws Exception {
        Path cora = SharedData.graph("cora");
        Path nodes = cora.resolve("nodes.tsv.gz");
        List<TreeMap<Long, byte[]>> runs = new ArrayList<>();
        for (int parallelism : new int[] {1, 2}) {
            Path out = tmp.resolve("p" + parallelism);
            JobSummary summary = runJob("--graph", cora.toString(), "--node-features", nodes.toString(),
                    "--fanout", "10,5", "--batch-size", "256", "--shuffle", "--seed", "3", "--output", out.toString(),
                    "--parallelism", String.valueOf(parallelism));
            assertThat(summary.featureDim).isEqualTo(1433);
            assertThat(summary.featureBytesPerValue).isEqualTo(4);
            assertThat(summary.toString()).contains("node features   2,708 x 1,433 float32 (4 bytes/value)");
            runs.add(readMessages(out));
        }
        assertSameMessages(runs.get(0), runs.get(1));
        assertNodeDataMatches(runs.get(0), referenceNodes(nodes), 1433, DType.F32);
        // input_id: the seeds' positions in the seed list; with every node a seed, position = id.
        for (byte[] blob : runs.get(0).values()) {
            TensorMessage m = SafetensorsCodec.decode(blob);
            assertThat(m.get(MessageKeys.META_INPUT_ID).asLongArray()).containsExactly(m.get(MessageKeys.BATCH).asLongArray());
        }
    }

    @Test
    void float16AndUint8FeaturesDequantiseToTheFileValues() throws Exception {
        Path cora = SharedData.graph("cora");
        Path nodes = cora.resolve("nodes.tsv.gz");
        Map<Long, float[]> reference = referenceNodes(nodes);
        for (String dtype : new String[] {"float16", "uint8"}) {
            Path out = tmp.resolve(dtype);
            JobSummary summary = runJob("--graph", cora.toString(), "--node-features", nodes.toString(),
                    "--feature-dtype", dtype, "--fanout", "5,5", "--batch-size", "512", "--seeds", "0,5,77,1000,2707",
                    "--output", out.toString(), "--parallelism", "1");
            assertThat(summary.featureBytesPerValue).isEqualTo(dtype.equals("uint8") ? 1 : 2);
            assertNodeDataMatches(readMessages(out), reference, 1433, dtype.equals("uint8") ? DType.U8 : DType.F16);
        }
    }

    @Test
    void pubmedLabelsOnlyAndPprMessagesCarryNodeData() throws Exception {
        Path pubmed = SharedData.graph("pubmed");
        Path out = tmp.resolve("ppr");
        runJob("--graph", pubmed.toString(), "--node-features", pubmed.resolve("nodes.tsv").toString(),
                "--sampler", "ppr", "--seeds", "0,1,2,3,4,5,6,7,8,9", "--batch-size", "5", "--output", out.toString(),
                "--parallelism", "1");
        TreeMap<Long, byte[]> messages = readMessages(out);
        assertThat(messages).hasSize(2);
        assertNodeDataMatches(messages, referenceNodes(pubmed.resolve("nodes.tsv")), 0, null);
    }

    @Test
    void withEdgeGivesEdgeIdsOfTheInputRowsAndWeightFeatures() throws Exception {
        Path bitcoin = SharedData.graph("bitcoin_alpha");
        Path edges = bitcoin.resolve("edges.tsv");
        if (!Files.exists(edges)) {
            edges = bitcoin.resolve("edges.tsv.gz");
        }
        List<String[]> rows = NodeFileReaderTest.referenceRows(edges); // '#' lines skipped: row i = edge id i
        Path out = tmp.resolve("edges");
        runJob("--graph", bitcoin.toString(), "--with-edge", "--fanout", "10,10", "--batch-size", "500",
                "--output", out.toString(), "--parallelism", "2");
        TreeMap<Long, byte[]> messages = readMessages(out);
        int checked = 0;
        for (byte[] blob : messages.values()) {
            TensorMessage m = SafetensorsCodec.decode(blob);
            long[] ids = m.get(MessageKeys.IDS).asLongArray();
            long[] r = m.get(MessageKeys.ROWS).asLongArray();
            long[] c = m.get(MessageKeys.COLS).asLongArray();
            long[] eids = m.get(MessageKeys.EIDS).asLongArray();
            float[] efeats = m.get(MessageKeys.EFEATS).asFloatArray();
            assertThat(m.get(MessageKeys.EFEATS).shape()).containsExactly(r.length, 1);
            assertThat(eids).hasSameSizeAs(r);
            for (int e = 0; e < r.length; e++) {
                String[] row = rows.get((int) eids[e]);
                // directed, --edge-dir out: the edge is ids[rows] -> ids[cols]
                assertThat(Long.parseLong(row[0])).isEqualTo(ids[(int) r[e]]);
                assertThat(Long.parseLong(row[1])).isEqualTo(ids[(int) c[e]]);
                assertThat(efeats[e]).isEqualTo(Float.parseFloat(row[2]));
                checked++;
            }
        }
        assertThat(checked).isGreaterThan(10_000);
    }

    @Test
    void sparseInt64IdsOnCorasStructureComeBackAsTheOriginalIds() throws Exception {
        // cora with every id v replaced by 2^61 + v * 1,000,003 (up to ~2^61 + 2.7e9), edges and node file alike.
        Path cora = SharedData.graph("cora");
        Path dir = Files.createDirectories(tmp.resolve("sparse"));
        Map<Long, Long> original = new HashMap<>();
        StringBuilder edgeText = new StringBuilder("# name=cora_sparse directed=false columns=src,dst\n");
        Set<List<Long>> edgeSet = new HashSet<>();
        for (String[] row : NodeFileReaderTest.referenceRows(cora.resolve("edges.tsv"))) {
            long a = sparse(Long.parseLong(row[0]));
            long b = sparse(Long.parseLong(row[1]));
            edgeText.append(a).append('\t').append(b).append('\n');
            edgeSet.add(List.of(a, b));
            edgeSet.add(List.of(b, a));
        }
        Files.writeString(dir.resolve("edges.tsv"), edgeText);
        StringBuilder nodeText = new StringBuilder("# id label f0..f3\n");
        Map<Long, float[]> reference = new HashMap<>();
        for (String[] row : NodeFileReaderTest.referenceRows(cora.resolve("nodes.tsv.gz"))) {
            long id = sparse(Long.parseLong(row[0]));
            original.put(id, Long.parseLong(row[0]));
            nodeText.append(id).append('\t').append(row[1]);
            float[] values = new float[5];
            values[0] = Float.parseFloat(row[1]);
            for (int c = 0; c < 4; c++) {
                nodeText.append('\t').append(row[2 + c]);
                values[1 + c] = Float.parseFloat(row[2 + c]);
            }
            nodeText.append('\n');
            reference.put(id, values);
        }
        Files.writeString(dir.resolve("nodes.tsv"), nodeText);

        List<TreeMap<Long, byte[]>> runs = new ArrayList<>();
        for (int parallelism : new int[] {1, 2}) {
            Path out = tmp.resolve("sparse-p" + parallelism);
            JobSummary summary = runJob("--graph", dir.resolve("edges.tsv").toString(), "--node-features",
                    dir.resolve("nodes.tsv").toString(), "--fanout", "15,10", "--batch-size", "300",
                    "--output", out.toString(), "--parallelism", String.valueOf(parallelism));
            assertThat(summary.graphNodes).isEqualTo(2708);
            assertThat(summary.bytesPerEdge()).as("8 bytes per node for the id map, never an array by the largest id")
                    .isLessThan(8.0);
            runs.add(readMessages(out));
        }
        assertSameMessages(runs.get(0), runs.get(1));
        assertNodeDataMatches(runs.get(0), reference, 4, DType.F32);
        Set<Long> seeded = new HashSet<>();
        for (byte[] blob : runs.get(0).values()) {
            TensorMessage m = SafetensorsCodec.decode(blob);
            long[] ids = m.get(MessageKeys.IDS).asLongArray();
            long[] r = m.get(MessageKeys.ROWS).asLongArray();
            long[] c = m.get(MessageKeys.COLS).asLongArray();
            for (int e = 0; e < r.length; e++) {
                assertThat(edgeSet).contains(List.of(ids[(int) r[e]], ids[(int) c[e]]));
            }
            for (long s : m.get(MessageKeys.BATCH).asLongArray()) {
                assertThat(seeded.add(s)).as("seed %d once", s).isTrue();
            }
        }
        assertThat(seeded).isEqualTo(original.keySet());

        // Seeds are given as the original int64 ids.
        Path one = tmp.resolve("one");
        runJob("--graph", dir.resolve("edges.tsv").toString(), "--seeds", sparse(0) + "," + sparse(2707),
                "--output", one.toString(), "--parallelism", "1");
        TensorMessage m = SafetensorsCodec.decode(readMessages(one).firstEntry().getValue());
        assertThat(m.get(MessageKeys.BATCH).asLongArray()).containsExactly(sparse(0), sparse(2707));
    }

    @Test
    void aNodeIdOfTwoBillionIsOneNodeNotAnArrayOfTwoBillion() throws Exception {
        Path file = tmp.resolve("edges.tsv");
        Files.writeString(file, "# directed=true columns=src,dst\n0\t2000000000\n2000000000\t5\n5\t0\n");
        Path out = tmp.resolve("big");
        JobSummary summary = runJob("--graph", file.toString(), "--fanout", "2,2", "--batch-size", "2",
                "--output", out.toString(), "--parallelism", "1");
        assertThat(summary.graphNodes).isEqualTo(3);
        assertThat(summary.graphHeapBytes).isLessThan(1_000);
        List<Long> all = new ArrayList<>();
        for (byte[] blob : readMessages(out).values()) {
            for (long id : SafetensorsCodec.decode(blob).get(MessageKeys.BATCH).asLongArray()) {
                all.add(id);
            }
        }
        assertThat(all).containsExactlyInAnyOrder(0L, 5L, 2_000_000_000L);
    }

    private static long sparse(long id) {
        return (1L << 61) + id * 1_000_003L;
    }
}
