package io.fanout.config;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.Configuration;

/**
 * The one table of which sampling option works on which kind of graph, sampler and store: every cell works, or a job
 * that sets the option there is refused before any graph is read, with one error naming each such option and why.
 *
 * <p>Every option of {@link FanoutOptions#jobOptions()} is placed here: as a sampling option with its cells, or as a
 * job option that does not change what is sampled (output, checkpoints, parallelism, ...). SamplingMatrixTest walks
 * the whole table from the option definitions, so an option that nobody placed fails the build, and it keeps the
 * README's table equal to {@link #markdown()}.
 */
public final class SamplingMatrix {
    /** The kind of graph a job reads. */
    public enum GraphKind {
        /** One node and edge type (an edge file or a directory of edges*.tsv). */
        PLAIN,
        /** Typed node and edge files (edges.src__rel__dst.tsv, nodes.type.tsv). */
        TYPED;

        @Override
        public String toString() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** One cell of the matrix: a graph kind, a sampler and a store. */
    public record Cell(GraphKind kind, SamplerType sampler, StoreType store) {
        /** Every cell, in table order. */
        public static List<Cell> all() {
            List<Cell> out = new ArrayList<>();
            for (GraphKind kind : GraphKind.values()) {
                for (SamplerType sampler : SamplerType.values()) {
                    for (StoreType store : StoreType.values()) {
                        out.add(new Cell(kind, sampler, store));
                    }
                }
            }
            return out;
        }

        @Override
        public String toString() {
            return kind + " " + sampler + " " + store;
        }
    }

    /**
     * One sampling option: where it works, that place in words (why not elsewhere), and the tests that check its
     * semantics where it works (class or class#method names under job/src/test or connectors/python/tests).
     */
    public record Row(ConfigOption<?> option, Predicate<Cell> works, String where, List<String> tests) {
        /** True when the option works in {@code cell}. */
        public boolean worksIn(Cell cell) {
            return works.test(cell);
        }
    }

    private static final Predicate<Cell> EVERYWHERE = c -> true;
    private static final Predicate<Cell> KHOP = c -> c.sampler() == SamplerType.KHOP;
    private static final Predicate<Cell> PPR = c -> c.sampler() == SamplerType.PPR;
    private static final Predicate<Cell> TYPED = c -> c.kind() == GraphKind.TYPED;
    private static final Predicate<Cell> MEMORY = c -> c.store() == StoreType.MEMORY;

    private static final String NOT_YET = "not implemented yet";

    private static final Map<ConfigOption<?>, Row> ROWS = new LinkedHashMap<>();

    static {
        row(FanoutOptions.FANOUT, KHOP, "k-hop (PPR selects neighbours by score, not by fanout)",
                "KHopSamplerTest", "HeteroKHopSamplerTest", "PartitionedStoreITCase", "PartitionedTypedITCase");
        row(FanoutOptions.REPLACE, KHOP, "k-hop (PPR selects neighbours by score, not by draws)",
                "KHopSamplerTest", "HeteroKHopSamplerTest", "PartitionedStoreITCase", "HeteroBatchAssemblyTest",
                "PartitionedTypedITCase");
        row(FanoutOptions.EDGE_DIR, EVERYWHERE, "every sampler and store", "KHopSamplerTest",
                "HeteroKHopSamplerTest", "PprSamplerTest", "PartitionedStoreITCase", "PartitionedTypedITCase");
        row(FanoutOptions.WEIGHT_COLUMN, KHOP, "k-hop (PPR does not draw)", "WeightedSamplerTest",
                "TypedOptionsITCase#weightedPerEdgeType", "WeightedPicksTest",
                "PartitionedStoreITCase#weightedDrawsAsTheMemoryStore",
                "PartitionedTypedITCase#weightedTypedDrawsAsTheMemoryStore");
        String temporal = "k-hop (temporal PPR: " + NOT_YET + ")";
        row(FanoutOptions.TIME_COLUMN, KHOP, temporal, "TemporalSamplerTest",
                "TypedOptionsITCase#temporalNeverSamplesTheFuture",
                "PlainLinkJobITCase#temporalLinkPredictionNeverSamplesAfterTheSeedEdgesTime",
                "HeteroLinkJobITCase#temporalTypedLinkPredictionNeverSamplesAfterTheSeedEdgesTime",
                "TemporalPicksTest", "PartitionedStoreITCase#temporalTreesAsTheMemoryStore",
                "RandomGraphsITCase#temporalTreesAgreeAcrossStoresAndNeverSampleTheFuture",
                "PartitionedTypedITCase#temporalTypedTreesAsTheMemoryStore",
                "RandomGraphsITCase#typedGraphsAgreeAndNeverSampleTheFuture");
        row(FanoutOptions.SEED_TIME, KHOP, temporal, "TemporalSamplerTest",
                "TypedOptionsITCase#temporalNeverSamplesTheFuture", "PartitionedStoreITCase#temporalTreesAsTheMemoryStore",
                "PartitionedTypedITCase#temporalTypedTreesAsTheMemoryStore");
        row(FanoutOptions.TEMPORAL_STRATEGY, KHOP, temporal, "TemporalSamplerTest",
                "TypedOptionsITCase#temporalLastTakesTheMostRecent", "TemporalPicksTest",
                "PartitionedStoreITCase#temporalTreesAsTheMemoryStore",
                "PartitionedTypedITCase#temporalTypedTreesAsTheMemoryStore");
        row(FanoutOptions.TIMELESS_EDGE_TYPES, TYPED.and(KHOP), "temporal k-hop on a typed graph (it names edge types)",
                "TypedOptionsITCase#timelessEdgeTypesAreDeclared");
        row(FanoutOptions.DISJOINT, KHOP, "k-hop (disjoint PPR has no meaning)", "DisjointKHopSamplerTest",
                "DisjointBatchTreesTest", "PartitionedStoreITCase#disjointTreesAsTheMemoryStore",
                "PartitionedTypedITCase#disjointTypedTreesAsTheMemoryStore",
                "TypedOptionsITCase#disjointTreesPerSeed", "PlainLinkJobITCase#disjointTripletTreesPerPairWithTheirNegatives",
                "HeteroLinkJobITCase#disjointTripletTreesAcrossTwoNodeTypes");
        row(FanoutOptions.SUBGRAPH_TYPE, KHOP, "k-hop (induced: plain graphs, refused on typed ones as PyG's typed"
                + " sampler has none)",
                "SubgraphInducerTest", "PygSamplingJobITCase",
                "test_layouts_pyg#test_typed_bidirectional_is_what_pyg_makes_of_the_directional_sample",
                "PlainLinkJobITCase#subgraphTypesOfLinkBatchesAsPyg",
                "HeteroLinkJobITCase#bidirectionalLinkBatchesAreTheDirectionalOnesMadeSymmetric",
                "PartitionedStoreITCase#bidirectionalSubgraphsAsTheMemoryStore", "InducedEdgesTest",
                "PartitionedStoreITCase#inducedSubgraphsAsTheMemoryStore",
                "PartitionedTypedITCase#bidirectionalTypedSubgraphsAsTheMemoryStore");
        row(FanoutOptions.WITH_EDGE, KHOP, "k-hop (PPR sends its score edges)", "NodeFeaturesJobITCase",
                "HeteroJobITCase", "PartitionedStoreITCase#edgeIdsWeightsAndTimesAsTheMemoryStore",
                "PartitionedTypedITCase#typedEdgeIdsAsTheMemoryStore");
        row(FanoutOptions.NODE_FEATURES, TYPED.negate(), "plain graphs (a typed graph's node files are the"
                + " nodes.<type>.tsv files in its directory)", "NodeFeaturesJobITCase", "PartitionedStoreITCase");
        row(FanoutOptions.SEED_TYPE, TYPED, "typed graphs (edges.<src>__<rel>__<dst>.tsv files)",
                "HeteroJobITCase", "TypedPprJobITCase", "PartitionedTypedITCase",
                "PartitionedTypedPprITCase");
        row(FanoutOptions.LINK_SEEDS, KHOP, "k-hop (PPR samples around seed nodes)",
                "PartitionedStoreITCase#linkBatchesAsTheMemoryStore", "HeteroLinkJobITCase",
                "PartitionedTypedITCase#typedLinkBatchesAsTheMemoryStore",
                "PlainLinkJobITCase", "PlainLinkJobITCase#temporalLinkPredictionNeverSamplesAfterTheSeedEdgesTime",
                "HeteroLinkJobITCase#temporalTypedLinkPredictionNeverSamplesAfterTheSeedEdgesTime",
                "test_layouts_pyg#test_a_two_layer_model_trains_on_every_plain_link_layout");
        row(FanoutOptions.LINK_TYPE, TYPED.and(KHOP), "typed graphs' link seeds (k-hop)", "HeteroLinkJobITCase",
                "PartitionedTypedITCase#typedLinkBatchesAsTheMemoryStore");
        row(FanoutOptions.NEG_SAMPLING, KHOP, "link seeds (k-hop)", "HeteroNegativeSamplerTest",
                "HeteroLinkJobITCase", "PlainLinkJobITCase", "NegativeCandidatesTest",
                "PartitionedStoreITCase#linkBatchesWithNegativesAsTheMemoryStore",
                "PartitionedTypedITCase#typedLinkBatchesAsTheMemoryStore",
                "RandomGraphsITCase#linkNegativesAgreeAcrossStoresAndAreNeverEdges");
        row(FanoutOptions.NEG_AMOUNT, KHOP, "link seeds (k-hop)", "HeteroNegativeSamplerTest",
                "HeteroLinkJobITCase", "PlainLinkJobITCase",
                "PartitionedStoreITCase#linkBatchesWithNegativesAsTheMemoryStore",
                "PartitionedTypedITCase#typedLinkBatchesAsTheMemoryStore");
        String ablp = "k-hop on a typed graph, either store (GiGL's DistABLPLoader; label edges are their own edge"
                + " types; a plain graph takes label-edge files: --ablp-positive-edges, --ablp-negative-edges)";
        row(FanoutOptions.ABLP_POSITIVE_TYPE, TYPED.and(KHOP), ablp, "AblpJobITCase",
                "PartitionedTypedITCase#typedAblpAsTheMemoryStore");
        row(FanoutOptions.ABLP_NEGATIVE_TYPE, TYPED.and(KHOP), ablp, "AblpJobITCase",
                "PartitionedTypedITCase#typedAblpAsTheMemoryStore");
        String plainAblp = "k-hop on a plain graph, either store (GiGL's DistABLPLoader on a homogeneous graph; a"
                + " typed graph names label edge types: --ablp-positive-type, --ablp-negative-type)";
        row(FanoutOptions.ABLP_POSITIVE_EDGES, TYPED.negate().and(KHOP), plainAblp,
                "AblpJobITCase#plainGraphAnchorsWithLabelEdgeFiles",
                "PartitionedStoreITCase#plainAblpAsTheMemoryStore",
                "test_layouts_pyg#test_a_two_layer_model_trains_on_every_plain_link_layout");
        row(FanoutOptions.ABLP_NEGATIVE_EDGES, TYPED.negate().and(KHOP), plainAblp,
                "AblpJobITCase#plainGraphAnchorsWithLabelEdgeFiles",
                "PartitionedStoreITCase#plainAblpAsTheMemoryStore");
        String ppr = "ppr (k-hop does not push scores)";
        row(FanoutOptions.ALPHA, PPR, ppr, "PprSamplerTest", "PartitionedPprITCase",
                "PartitionedTypedPprITCase");
        row(FanoutOptions.EPS, PPR, ppr, "PprSamplerTest", "PartitionedPprITCase",
                "PartitionedTypedPprITCase");
        row(FanoutOptions.MAX_PPR_NODES, PPR, ppr, "PprSamplerTest", "PartitionedPprITCase",
                "PartitionedTypedPprITCase");
        row(FanoutOptions.PPR_MAX_NEIGHBORS, PPR, ppr, "PprSamplerTest", "PartitionedPprITCase",
                "PartitionedTypedPprITCase");
        row(FanoutOptions.RESIDUAL_TOPUP, PPR, ppr, "PprSamplerTest", "PartitionedPprITCase",
                "PartitionedTypedPprITCase");
        row(FanoutOptions.PPR_MAX_FETCH_ITERATIONS, PPR.and(MEMORY.negate()), "ppr on the partitioned store (the"
                + " memory store pushes to convergence)", "PartitionedPprITCase", "PartitionedTypedPprITCase");
        row(FanoutOptions.PPR_CHANNELS, PPR.and(TYPED), "ppr on a typed graph", "TypedPprSamplerTest",
                "PartitionedTypedPprITCase#coraHeteroChannelsSampledEdgesAndFeaturesAsTheMemoryStore");
        row(FanoutOptions.INCLUDE_SAMPLED_EDGES, PPR.and(TYPED), "ppr on a typed graph", "TypedPprSamplerTest",
                "PartitionedTypedPprITCase#coraHeteroChannelsSampledEdgesAndFeaturesAsTheMemoryStore");
    }

    /**
     * Options that do not change what a batch's sample is (the graph, the seeds and their batches, the trainers
     * sharing them and the first epoch, the outputs, checkpoints, the partitioned store's own settings, which
     * {@link FanoutJobConfig} checks against the store): they work in every cell.
     */
    private static final Set<ConfigOption<?>> JOB_OPTIONS = Set.of(FanoutOptions.GRAPH, FanoutOptions.DIRECTED,
            FanoutOptions.FEATURE_DTYPE, FanoutOptions.SEEDS, FanoutOptions.BATCH_SIZE, FanoutOptions.SHUFFLE,
            FanoutOptions.DROP_LAST, FanoutOptions.EPOCHS, FanoutOptions.TRAINERS, FanoutOptions.START_EPOCH,
            FanoutOptions.SEED, FanoutOptions.SAMPLER,
            FanoutOptions.STORE, FanoutOptions.STATE_BACKEND, FanoutOptions.PARTITIONED_BUCKET_SIZE, FanoutOptions.PARTITIONED_SPLIT_SIZE,
            FanoutOptions.PARTITIONED_SEED_CHUNK, FanoutOptions.PARTITIONED_NODE_IDS_DIR,
            FanoutOptions.PARTITIONED_CACHE_MB, FanoutOptions.PARTITIONED_COMPACT_AFTER_LOAD,
            FanoutOptions.PARTITIONED_LOAD_ONLY, FanoutOptions.GRAPH_UPDATES, FanoutOptions.GRAPH_UPDATES_INTERVAL,
            FanoutOptions.GRAPH_UPDATES_SOCKET, FanoutOptions.OUTPUT, FanoutOptions.OUTPUT_MODE, FanoutOptions.SERVE,
            FanoutOptions.PARALLELISM, FanoutOptions.CHECKPOINT_INTERVAL, FanoutOptions.CHECKPOINT_TIMEOUT,
            FanoutOptions.TOLERABLE_FAILED_CHECKPOINTS, FanoutOptions.CHECKPOINT_DIR,
            FanoutOptions.MAX_BATCHES_PER_SECOND, FanoutOptions.ON_SAMPLING_ERROR,
            FanoutOptions.INJECT_SAMPLING_ERRORS);

    /** Why a whole cell is refused, whatever its options, or null when it runs. */
    public static String refusedCell(Cell cell) {
        return null;
    }

    private SamplingMatrix() {}

    private static void row(ConfigOption<?> option, Predicate<Cell> works, String where, String... tests) {
        ROWS.put(option, new Row(option, works, where, List.of(tests)));
    }

    /** The sampling options' rows, in table order. */
    public static List<Row> rows() {
        return List.copyOf(ROWS.values());
    }

    /** The options placed as job options (no cell refuses them). */
    public static Set<ConfigOption<?>> jobOptions() {
        return JOB_OPTIONS;
    }

    /**
     * Refuses, in one error, every sampling option that {@code conf} sets (to other than its default) and that does
     * not work in {@code cell}, and a cell that does not run at all.
     *
     * @throws ConfigException naming each such option, its value and why
     */
    public static void check(Configuration conf, Cell cell) {
        Objects.requireNonNull(cell, "cell");
        String whole = refusedCell(cell);
        if (whole != null) {
            throw new ConfigException("Invalid value '" + cell.store() + "' for option "
                    + FanoutJobConfig.name(FanoutOptions.STORE) + " with a typed graph: " + whole);
        }
        List<String> refused = new ArrayList<>();
        for (Row row : ROWS.values()) {
            if (isSet(conf, row.option()) && !row.worksIn(cell)) {
                refused.add(FanoutJobConfig.name(row.option()) + " '" + conf.toMap().get(row.option().key()).trim()
                        + "' is for " + row.where());
            }
        }
        if (!refused.isEmpty()) {
            throw new ConfigException((refused.size() == 1 ? "Option " : "Options: ") + String.join("; ", refused)
                    + ". This job is a " + cell.kind() + " graph with " + FanoutJobConfig.name(FanoutOptions.SAMPLER)
                    + " " + cell.sampler() + " and " + FanoutJobConfig.name(FanoutOptions.STORE) + " " + cell.store()
                    + ": drop " + (refused.size() == 1 ? "it" : "them") + " or change the sampler or store (README:"
                    + " \"Which option works where\")");
        }
    }

    /** True when conf gives the option a value other than its default (an explicit default changes nothing). */
    static boolean isSet(Configuration conf, ConfigOption<?> option) {
        String raw = conf.toMap().get(option.key());
        if (raw == null || raw.isBlank()) {
            return false;
        }
        if (!option.hasDefaultValue()) {
            return true;
        }
        Object value = FanoutJobConfig.get(conf, option);
        Object def = option.defaultValue();
        if (value instanceof String && def instanceof String) {
            return !((String) value).trim().equals(((String) def).trim());
        }
        return !Objects.equals(value, def);
    }

    /** The matrix as a Markdown table: a row per sampling option, a column per cell; each cell yes or no. */
    public static String markdown() {
        List<Cell> cells = Cell.all();
        StringBuilder out = new StringBuilder();
        out.append("| option |");
        for (Cell c : cells) {
            out.append(' ').append(c.kind()).append(' ').append(c.sampler()).append(' ').append(c.store()).append(" |");
        }
        out.append(" tests |\n|---|");
        out.append("---|".repeat(cells.size())).append("---|\n");
        for (Row row : ROWS.values()) {
            out.append("| `--").append(CommandLine.flagOf(row.option())).append("` |");
            for (Cell c : cells) {
                out.append(refusedCell(c) != null ? " - |" : row.worksIn(c) ? " yes |" : " no |");
            }
            out.append(' ').append(row.tests().stream().map(t -> "`" + t + "`").collect(Collectors.joining(", ")))
                    .append(" |\n");
        }
        return out.toString();
    }

}
