package io.fanout.flink.partitioned;

import io.fanout.batch.SeedBatch;
import io.fanout.features.NodeFileReader;
import io.fanout.graph.GraphLoader;
import io.fanout.store.GraphSpec;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.List;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.execution.SuppressRestartsException;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;

/**
 * Keeps, beside the loaded graph, what was loaded (the graph's files, hop count, bucket size, split size, node file) and
 * refuses a restore whose job describes a different graph: a savepoint restores the finished edge source as
 * finished, so a job started from another graph's savepoint would otherwise sample the old graph silently.
 *
 * <p>A pass-through on the seed-batch path (the only path that runs in a job restored from a loaded graph);
 * its uid is fixed, unlike the batch path's, so every savepoint of a partitioned job carries the description.
 */
public class SavedGraphCheck implements MapFunction<SeedBatch, SeedBatch>, CheckpointedFunction {
    private static final long serialVersionUID = 1L;
    /** The operator uid: the same in every partitioned job, so the description is restored by any of them. */
    public static final String UID = "saved-graph";

    private final String graph;

    /** @param graph this job's {@link #describe} */
    public SavedGraphCheck(String graph) {
        this.graph = graph;
    }

    /**
     * What the lookups' state depends on, readable in an error: the graph path, a fingerprint of its edge parts
     * (names, sizes, modification times), directedness, edge direction, hop count, bucket size, split size and the node
     * file's fingerprint and dtype.
     */
    public static String describe(GraphSpec spec, int hops, int bucketSize) throws IOException {
        List<Path> parts = GraphLoader.edgeFiles(spec.edges(), spec.typedPart());
        StringBuilder s = new StringBuilder("graph ").append(spec.edges().toAbsolutePath().normalize())
                .append(" (").append(parts.size()).append(" edge parts, fingerprint ").append(fingerprint(parts))
                .append(", directed ").append(spec.directed() == null ? "per file header" : spec.directed())
                .append(", edge-dir ").append(spec.direction()).append("), ").append(hops).append(hops == 1 ? " hop" : " hops")
                .append(", bucket size ")
                .append(bucketSize).append(", split bytes ").append(spec.splitBytes());
        if (spec.nodeFeatures() != null) {
            s.append(", node file ").append(spec.nodeFeatures().toAbsolutePath().normalize()).append(" (fingerprint ")
                    .append(fingerprint(NodeFileReader.parts(spec.nodeFeatures()))).append(", ")
                    .append(spec.featureDType()).append(')');
        } else {
            s.append(", no node file");
        }
        // The keyed state's layout: a savepoint of another layout (older code) would read as empty lists.
        return s.append(", state layout 3").toString();
    }

    /** SHA-256 (first 16 hex digits) of the files' absolute paths, sizes and modification times. */
    static String fingerprint(List<Path> files) throws IOException {
        MessageDigest sha = io.fanout.digest.Sha256.create();
        for (Path f : files) {
            String entry = f.toAbsolutePath().normalize() + "\t" + Files.size(f) + "\t"
                    + Files.getLastModifiedTime(f).toMillis() + "\n";
            sha.update(entry.getBytes(StandardCharsets.UTF_8));
        }
        return io.fanout.digest.Sha256.hex(sha, 16);
    }

    @Override
    public SeedBatch map(SeedBatch batch) {
        return batch;
    }

    @Override
    public void initializeState(FunctionInitializationContext context) throws Exception {
        // Union state: every subtask sees every saved entry, at any parallelism.
        ListState<String> saved = context.getOperatorStateStore()
                .getUnionListState(new ListStateDescriptor<>("loaded-graph", Types.STRING));
        if (context.isRestored()) {
            for (String loaded : saved.get()) {
                if (!loaded.equals(graph)) {
                    // Not retried: a restart would restore the same savepoint again.
                    throw new SuppressRestartsException(new IllegalStateException(
                            "--store partitioned: the savepoint holds a different loaded graph. Saved: " + loaded
                                    + ". This job: " + graph + ". Start this job without -s (it loads its graph),"
                                    + " or from a savepoint of a job with the same --graph, --directed, --edge-dir,"
                                    + " number of hops (--fanout), --partitioned.bucket-size, --partitioned.split-size and --node-features"
                                    + " (files unchanged)."));
                }
            }
        }
        saved.update(List.of(graph));
    }

    @Override
    public void snapshotState(FunctionSnapshotContext context) {
        // The description set at initializeState is the state; nothing changes per checkpoint.
    }
}
