package io.fanout.config;

import io.fanout.connectors.channel.options.ChannelOptions;
import java.time.Duration;
import java.util.List;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;

/**
 * Every option of a Fanout job as a Flink {@link ConfigOption}: one source for the CLI
 * ({@code --batch-size 512}), YAML files ({@code fanout.batch-size: 512}) and {@code --help}.
 *
 * <p>Keys are {@code fanout.<name>}; the command-line flag is {@code --<name>} (see {@link CommandLine}).
 */
public final class FanoutOptions {
    private FanoutOptions() {}

    public static final ConfigOption<String> GRAPH = ConfigOptions.key("fanout.graph")
            .stringType()
            .noDefaultValue()
            .withDescription("Graph to sample: one edge file (edges.tsv[.gz]) or a directory holding the"
                    + " graph's edges*.tsv[.gz] files. Required.");

    public static final ConfigOption<String> NODE_FEATURES = ConfigOptions.key("fanout.node-features")
            .stringType()
            .noDefaultValue()
            .withDescription("Node features and labels to put into every message (nfeats, nlabels aligned with ids):"
                    + " a nodes.tsv[.gz] file (id, label, f0..fn; label -1 = unlabelled) or a directory of"
                    + " nodes*.tsv[.gz] parts. Every node of the graph needs a row. Loaded once per TaskManager.");

    public static final ConfigOption<io.fanout.features.FeatureDType> FEATURE_DTYPE = ConfigOptions.key("fanout.feature-dtype")
            .enumType(io.fanout.features.FeatureDType.class)
            .defaultValue(io.fanout.features.FeatureDType.FLOAT32)
            .withDescription("How node features are stored and shipped: float32 (exact), float16 (half the bytes),"
                    + " or uint8 (a quarter: per-column min/max quantisation; messages carry #META.nfeats_scale and"
                    + " #META.nfeats_offset, value = offset + scale * q).");

    public static final ConfigOption<Boolean> WITH_EDGE = ConfigOptions.key("fanout.with-edge")
            .booleanType()
            .defaultValue(false)
            .withDescription("k-hop: add eids (each sampled edge's 0-based row in the edge files, over all parts in"
                    + " name order) and, when the edge files have a weight column, efeats (float32 [m, 1]) to every"
                    + " message (GLT with_edge).");

    public static final ConfigOption<String> SEEDS = ConfigOptions.key("fanout.seeds")
            .stringType()
            .noDefaultValue()
            .withDescription("Seed nodes: a file with one node id per line, or a comma list such as 1,5,9."
                    + " Default: every node of the graph.");

    public static final ConfigOption<Boolean> DIRECTED = ConfigOptions.key("fanout.directed")
            .booleanType()
            .noDefaultValue()
            .withDescription("Whether the graph's edges are directed: true, or false (every row is an edge both"
                    + " ways). Default: what the edge files' directed= header says; without that header this option"
                    + " is required. Given with a header that disagrees, the load fails naming both.");

    public static final ConfigOption<Integer> BATCH_SIZE = ConfigOptions.key("fanout.batch-size")
            .intType()
            .defaultValue(512)
            .withDescription("Seeds per batch (GLT/GiGL batch_size). One message is emitted per batch.");

    public static final ConfigOption<Boolean> SHUFFLE = ConfigOptions.key("fanout.shuffle")
            .booleanType()
            .defaultValue(false)
            .withDescription("Visit the seeds in a fresh seeded permutation every epoch (GLT shuffle).");

    public static final ConfigOption<Boolean> DROP_LAST = ConfigOptions.key("fanout.drop-last")
            .booleanType()
            .defaultValue(false)
            .withDescription("Drop the last, incomplete batch of each epoch (GLT drop_last).");

    public static final ConfigOption<Integer> EPOCHS = ConfigOptions.key("fanout.epochs")
            .intType()
            .defaultValue(1)
            .withDescription("Number of passes over the seeds.");

    public static final ConfigOption<Integer> TRAINERS = ConfigOptions.key("fanout.trainers")
            .intType()
            .defaultValue(1)
            .withDescription("Data-parallel trainers sharing the batches (>= 1): batch b of an epoch is rank"
                    + " b mod trainers's, and every epoch's batch count is a multiple of trainers, so every rank"
                    + " takes the same number of steps. The count is rounded up by padding batches that take seeds"
                    + " again from the start of the epoch's order (as torch's DistributedSampler pads), or with"
                    + " --drop-last rounded down by dropping whole trailing batches. With more than one, every"
                    + " message carries #META.trainers = [trainers] and #META.padded = [1] on a padding batch, [0]"
                    + " on a real one; #META.num_batches counts the padding.");

    public static final ConfigOption<Integer> START_EPOCH = ConfigOptions.key("fanout.start-epoch")
            .intType()
            .defaultValue(0)
            .withDescription("First epoch to sample, 0 <= E < --epochs: the job samples epochs E..epochs-1,"
                    + " byte-identical to those epochs of the full run (the same batches, seeds and random streams;"
                    + " messages keep their epoch numbers), so a trainer restarted from its epoch-E checkpoint gets"
                    + " exactly the batches it would have had.");

    public static final ConfigOption<Long> SEED = ConfigOptions.key("fanout.seed")
            .longType()
            .defaultValue(42L)
            .withDescription("Seed of every random choice (shuffle and sampling). The same options give"
                    + " byte-identical messages whatever the parallelism or restarts.");

    public static final ConfigOption<SamplerType> SAMPLER = ConfigOptions.key("fanout.sampler")
            .enumType(SamplerType.class)
            .defaultValue(SamplerType.KHOP)
            .withDescription("Sampling algorithm: khop (uniform k-hop neighbour sampling) or ppr (top-k"
                    + " personalized PageRank neighbours per seed by forward push, GiGL's PPR sampler).");

    public static final ConfigOption<StoreType> STORE = ConfigOptions.key("fanout.store")
            .enumType(StoreType.class)
            .defaultValue(StoreType.MEMORY)
            .withDescription("Where the graph lives: memory (each TaskManager loads the whole graph into its heap, the"
                    + " fast path) or partitioned (the adjacency in Flink keyed state by node, in RocksDB or the heap"
                    + " per --state-backend, loaded by the TaskManagers in parallel; k-hop runs as one keyed lookup per"
                    + " hop: for graphs larger than one TaskManager; PPR as keyed fetch rounds). partitioned samples"
                    + " k-hop (weighted, temporal, disjoint trees, subgraph types, edge ids, link seeds with negatives,"
                    + " ABLP)"
                    + " and PPR on plain and typed graphs with node features and labels, the same bytes as memory"
                    + " (graph updates: plain graphs; see the sampling matrix).");

    public static final ConfigOption<StateBackendType> STATE_BACKEND = ConfigOptions.key("fanout.state-backend")
            .enumType(StateBackendType.class)
            .defaultValue(StateBackendType.ROCKSDB)
            .withDescription("Flink's keyed-state backend, where --store partitioned keeps the graph: rocksdb (on the"
                    + " TaskManagers' local disks: graphs larger than their memory, incremental checkpoints) or hashmap"
                    + " (Flink's heap backend: the graph as objects in the TaskManagers' heaps, read without"
                    + " deserialising, every checkpoint a full copy: for graphs that fit the cluster's memory but not one"
                    + " TaskManager). The same samples either way. Sets Flink's state.backend.type; -D"
                    + " state.backend.type with another value is refused.");

    public static final ConfigOption<Integer> PARTITIONED_BUCKET_SIZE = ConfigOptions.key("fanout.partitioned.bucket-size")
            .intType()
            .defaultValue(4096)
            .withDescription("--store partitioned: neighbours per stored bucket of a node's list (>= 1). A node's"
                    + " neighbours are kept in buckets of this many, one keyed-state entry each, so no state value"
                    + " grows with a node's degree and a hop reads only the buckets its picks fall in. Does not"
                    + " change the samples.");

    public static final ConfigOption<org.apache.flink.configuration.MemorySize> PARTITIONED_SPLIT_SIZE =
            ConfigOptions.key("fanout.partitioned.split-size")
            .memoryType()
            .defaultValue(org.apache.flink.configuration.MemorySize.ofMebiBytes(16))
            .withDescription("--store partitioned: an edge part larger than this is loaded as byte ranges of this size"
                    + " (a line belongs to the range it starts in; a gzip part is one range), each one source element:"
                    + " one big edge file loads on every reader, and a checkpoint during the load waits for one range,"
                    + " not a whole part. >= 1kb, e.g. 16mb. Does not change the samples.");

    public static final ConfigOption<Integer> PARTITIONED_SEED_CHUNK = ConfigOptions.key("fanout.partitioned.seed-chunk")
            .intType()
            .defaultValue(16_384)
            .withDescription("--store partitioned with a --seeds file: seeds per chunk of the file (>= 1). The"
                    + " TaskManagers read the seed file in chunks, one chunk per source poll, and place each seed in its"
                    + " batch; the client keeps 16 bytes per chunk, never the seeds. Does not change the samples.");

    public static final ConfigOption<String> PARTITIONED_NODE_IDS_DIR = ConfigOptions.key("fanout.partitioned.node-ids-dir")
            .stringType()
            .noDefaultValue()
            .withDescription("--store partitioned without --seeds (every node a seed): the local directory where the"
                    + " client writes the graph's node ids in id order (sorted in bounded runs, so its heap does not grow"
                    + " with the graph), as the seed file the TaskManagers read; every TaskManager must see it at the same"
                    + " path, as the edge files. The file is named by its content and reused while the graph is"
                    + " unchanged; ids exactly 0..n-1 need no file. Default: java.io.tmpdir (a local run, or a cluster"
                    + " whose TaskManagers share the client's /tmp).");

    public static final ConfigOption<Integer> PARTITIONED_CACHE_MB = ConfigOptions.key("fanout.partitioned.cache-mb")
            .intType()
            .defaultValue(-1)
            .withDescription("--store partitioned over a fixed graph: MB of heap per lookup subtask for the most"
                    + " recently read values. K-hop (one lookup per hop and parallel subtask): node heads (degree and"
                    + " first bucket of neighbours), and a quarter of that more for the later buckets of nodes longer"
                    + " than one. PPR (one lookup per fetch round and parallel subtask): the nodes' neighbour lists"
                    + " (typed: rows). With a node file, its lookup: the nodes' rows. 0 = off; -1 (default) = auto:"
                    + " an eighth of the TaskManager's heap, shared by the lookup subtasks it can run ((hops or fetch"
                    + " rounds, plus node-data lookups) x task slots). Bounded by the heap, so"
                    + " it does not grow with the graph; a hit saves a RocksDB read. Does not change the samples.");

    public static final ConfigOption<String> GRAPH_UPDATES = ConfigOptions.key("fanout.graph-updates")
            .stringType()
            .noDefaultValue()
            .withDescription("--store partitioned: a directory of graph-update files to watch while sampling"
                    + " continues (lines 'version op src dst', op + or -, or 'version' alone to commit it; see"
                    + " docs/partitioned-store.md, 'Graph updates'). New files are picked up every fanout.graph-updates-interval; each message"
                    + " records the graph version it was sampled at (#META.graph_version).");

    public static final ConfigOption<Duration> GRAPH_UPDATES_INTERVAL = ConfigOptions.key("fanout.graph-updates-interval")
            .durationType()
            .defaultValue(Duration.ofSeconds(1))
            .withDescription("How often the fanout.graph-updates directory is listed for new files (> 0).");

    public static final ConfigOption<String> GRAPH_UPDATES_SOCKET = ConfigOptions.key("fanout.graph-updates-socket")
            .stringType()
            .noDefaultValue()
            .withDescription("--store partitioned: read graph-update lines from a TCP server at host:port instead of"
                    + " a directory (for tests; the updates end when the server closes the connection).");

    public static final ConfigOption<Boolean> PARTITIONED_COMPACT_AFTER_LOAD =
            ConfigOptions.key("fanout.partitioned.compact-after-load")
            .booleanType()
            .defaultValue(true)
            .withDescription("--store partitioned (k-hop, with or without graph updates): once the edges are loaded, compact each"
                    + " hop's loaded adjacency in RocksDB before answering requests. The load writes a node's edges"
                    + " as many small merges; compacted, a node's first read finds one value (R-MAT, 100 M stored edges,"
                    + " three epochs: 2.7x the sampled edges/s for 64 s more load with Flink's RocksDB defaults, 21 s"
                    + " with the job's: 4 background jobs, LZ4). A cancelled job stops it at once."
                    + " false: skip it, e.g. for a job of one epoch. Does not change the samples.");

    public static final ConfigOption<Boolean> PARTITIONED_LOAD_ONLY = ConfigOptions.key("fanout.partitioned.load-only")
            .booleanType()
            .defaultValue(false)
            .withDescription("--store partitioned: load the graph (edges, and --node-features) into keyed state,"
                    + " sample nothing and keep running until stopped with a savepoint (flink stop --savepointPath"
                    + " DIR JOB_ID); later jobs with the same graph options and number of hops start from it"
                    + " (flink run -s SAVEPOINT --allowNonRestoredState ...) instead of reading the edge files."
                    + " No --output or --serve.");

    public static final ConfigOption<String> FANOUT = ConfigOptions.key("fanout.fanout")
            .stringType()
            .defaultValue("15,10")
            .withDescription("k-hop: neighbours sampled per node for each hop, first entry = hop from the"
                    + " seeds (GLT/PyG num_neighbors); -1 takes all neighbours. A typed graph takes one list for every"
                    + " edge type or one per type, 'paper__cites__paper:15,10;paper__has_word__word:5,0' (in YAML a"
                    + " mapping edge type -> list; the same number of hops for every type; 0 = none at that hop).");

    public static final ConfigOption<String> SEED_TYPE = ConfigOptions.key("fanout.seed-type")
            .stringType()
            .noDefaultValue()
            .withDescription("Typed graph: the node type of the seeds (GLT input_type); --seeds ids are of this type."
                    + " Optional when the graph has one node type.");

    public static final ConfigOption<String> LINK_SEEDS = ConfigOptions.key("fanout.link-seeds")
            .stringType()
            .noDefaultValue()
            .withDescription("Link prediction (plain or typed graph): a file of seed edges, src<TAB>dst[<TAB>time] per"
                    + " line (# lines skipped), of --link-type on a typed graph; each batch samples around the"
                    + " endpoints of --batch-size of them (GLT edge input) and carries #META.edge_label_index, or with"
                    + " triplet negatives #META.src_index, #META.dst_pos_index and #META.dst_neg_index. With"
                    + " --time-column the third column is each seed edge's time (PyG edge_label_time) and every"
                    + " endpoint grows its own tree (PyG's temporal LinkNeighborLoader).");

    public static final ConfigOption<String> LINK_TYPE = ConfigOptions.key("fanout.link-type")
            .stringType()
            .noDefaultValue()
            .withDescription("Link prediction: the edge type of --link-seeds, src__rel__dst. Optional when the graph"
                    + " has one edge type.");

    public static final ConfigOption<io.fanout.sampling.link.NegativeSampling> NEG_SAMPLING = ConfigOptions.key("fanout.neg-sampling")
            .enumType(io.fanout.sampling.link.NegativeSampling.class)
            .defaultValue(io.fanout.sampling.link.NegativeSampling.NONE)
            .withDescription("Link prediction negatives (GLT NegativeSampling): none; binary (ceil(amount x"
                    + " positives) random node pairs that are not edges of the link type, #META.edge_label 1/0);"
                    + " triplet (amount destinations per positive that its source has no edge to). Strict and"
                    + " seeded per batch.");

    public static final ConfigOption<Double> NEG_AMOUNT = ConfigOptions.key("fanout.neg-amount")
            .doubleType()
            .defaultValue(1.0)
            .withDescription("Negatives per positive link seed: > 0 for binary, a whole number >= 1 for triplet.");

    public static final ConfigOption<String> ABLP_POSITIVE_TYPE = ConfigOptions.key("fanout.ablp-positive-type")
            .stringType()
            .noDefaultValue()
            .withDescription("Typed graph, anchor-based link prediction (GiGL ABLP): the edge type, anchor first"
                    + " (<anchor>__<rel>__<supervision>), of the positive label edges. They are labels only, never"
                    + " traversed (give them no fanout); the seeds are anchors (--seeds, default every node with a"
                    + " positive label edge) and every message carries #META.gigl_positive_labels.<type>.");

    public static final ConfigOption<String> ABLP_NEGATIVE_TYPE = ConfigOptions.key("fanout.ablp-negative-type")
            .stringType()
            .noDefaultValue()
            .withDescription("ABLP: the edge type of the negative label edges (same node types as"
                    + " --ablp-positive-type), never traversed; messages add #META.gigl_negative_labels.<type>.");

    public static final ConfigOption<String> ABLP_POSITIVE_EDGES = ConfigOptions.key("fanout.ablp-positive-edges")
            .stringType()
            .noDefaultValue()
            .withDescription("Plain graph, anchor-based link prediction (GiGL ABLP on a homogeneous graph): a file of"
                    + " positive label edges, anchor<TAB>label node ids per line (# lines skipped), kept apart from"
                    + " the graph and never traversed; the seeds are anchors (--seeds, default every node with a"
                    + " positive label edge) and every message carries #META.gigl_positive_labels."
                    + "default_homogeneous_node_type__to_gigl_positive__default_homogeneous_node_type. A typed graph"
                    + " names label edge types instead (--ablp-positive-type).");

    public static final ConfigOption<String> ABLP_NEGATIVE_EDGES = ConfigOptions.key("fanout.ablp-negative-edges")
            .stringType()
            .noDefaultValue()
            .withDescription("Plain-graph ABLP: a file of negative label edges (anchor<TAB>label node ids), never"
                    + " traversed; needs --ablp-positive-edges; messages add #META.gigl_negative_labels.<GiGL's"
                    + " homogeneous negative label type>.");

    public static final ConfigOption<Boolean> REPLACE = ConfigOptions.key("fanout.replace")
            .booleanType()
            .defaultValue(false)
            .withDescription("k-hop: sample neighbours with replacement (PyG replace=True). Default: a node"
                    + " of degree d gets exactly min(fanout, d) distinct neighbour positions.");

    public static final ConfigOption<String> WEIGHT_COLUMN = ConfigOptions.key("fanout.weight-column")
            .stringType()
            .noDefaultValue()
            .withDescription("k-hop: draw neighbours in proportion to this edge column (a name in the edge files'"
                    + " columns= header, usually weight; PyG weight_attr). With --replace each draw is proportional to"
                    + " the weights (alias tables built at load), without it successive sampling (PyG's"
                    + " Efraimidis-Spirakis). Weights must be finite and >= 0 with a positive sum per neighbourhood;"
                    + " anything else fails the load naming the file and line (--store partitioned: an all-zero"
                    + " neighbourhood fails the job when first drawn from, naming the node). Default: uniform.");

    public static final ConfigOption<Boolean> DISJOINT = ConfigOptions.key("fanout.disjoint")
            .booleanType()
            .defaultValue(false)
            .withDescription("k-hop: one tree per seed (PyG disjoint=True): a node reached from two seeds is two nodes,"
                    + " and messages carry #META.batch, each node's seed index (PyG's batch vector). Default: one"
                    + " de-duplicated subgraph per batch (GLT's inducer).");

    public static final ConfigOption<io.fanout.sampling.SubgraphType> SUBGRAPH_TYPE = ConfigOptions.key("fanout.subgraph-type")
            .enumType(io.fanout.sampling.SubgraphType.class)
            .defaultValue(io.fanout.sampling.SubgraphType.DIRECTIONAL)
            .withDescription("k-hop (PyG subgraph_type): directional (the sampled edges), bidirectional (the sampled"
                    + " edges and their reverses, duplicates dropped) or induced (every edge among the sampled nodes;"
                    + " plain graphs, not with --disjoint, as in PyG). The last two carry no"
                    + " num_sampled_edges.");

    public static final ConfigOption<String> TIME_COLUMN = ConfigOptions.key("fanout.time-column")
            .stringType()
            .noDefaultValue()
            .withDescription("k-hop: temporal sampling (PyG time_attr on edges): only edges whose time in this column"
                    + " (a columns= name, usually timestamp) is <= the seed's time; edges are sorted by it at load."
                    + " Temporal sampling is disjoint (one tree per seed), as in PyG. Seed times: --seed-time, or a --seeds"
                    + " file of id<TAB>time lines, or with --link-seeds the seed edges' third column. Default: none.");

    public static final ConfigOption<String> TIMELESS_EDGE_TYPES = ConfigOptions.key("fanout.timeless-edge-types")
            .stringType()
            .noDefaultValue()
            .withDescription("Typed graph with --time-column: the edge types (src__rel__dst, comma-separated) that"
                    + " have no time column and may be followed at any seed time (a static relation, such as"
                    + " paper__has__word). Every other edge type's file must have the time column; an edge type that"
                    + " lacks it and is not named here fails the job before anything is read, so no relation is"
                    + " timeless by default. Default: none.");

    public static final ConfigOption<Long> SEED_TIME = ConfigOptions.key("fanout.seed-time")
            .longType()
            .noDefaultValue()
            .withDescription("k-hop with --time-column: the time of every seed (same unit as the column); instead of"
                    + " per-seed times in the --seeds file.");

    public static final ConfigOption<io.fanout.sampling.TemporalStrategy> TEMPORAL_STRATEGY = ConfigOptions.key("fanout.temporal-strategy")
            .enumType(io.fanout.sampling.TemporalStrategy.class)
            .defaultValue(io.fanout.sampling.TemporalStrategy.UNIFORM)
            .withDescription("k-hop with --time-column (PyG temporal_strategy): uniform (draw among the edges up to the"
                    + " seed's time) or last (the fanout most recent of them).");

    public static final ConfigOption<Double> ALPHA = ConfigOptions.key("fanout.alpha")
            .doubleType()
            .defaultValue(0.5)
            .withDescription("ppr: restart (teleport-to-seed) probability of the random walk, in (0,1) (GiGL"
                    + " PPRSamplerOptions.alpha default 0.5).");

    public static final ConfigOption<Double> EPS = ConfigOptions.key("fanout.eps")
            .doubleType()
            .defaultValue(1e-4)
            .withDescription("ppr: forward-push tolerance, > 0: a node is pushed while its residual is >="
                    + " alpha * eps * degree (GiGL). Each score is then within eps * degree of the exact PPR"
                    + " (undirected graphs).");

    public static final ConfigOption<Integer> MAX_PPR_NODES = ConfigOptions.key("fanout.max-ppr-nodes")
            .intType()
            .defaultValue(50)
            .withDescription("ppr: PPR neighbours kept per seed (top-k by score, the seed included; GiGL"
                    + " max_ppr_nodes), >= 1.");

    public static final ConfigOption<Integer> PPR_MAX_NEIGHBORS = ConfigOptions.key("fanout.ppr-max-neighbors")
            .intType()
            .defaultValue(1000)
            .withDescription("ppr: neighbours a push reads per node (GiGL num_neighbors_per_hop, default 1000; on a"
                    + " typed graph per node and edge type): a fixed seeded uniform sample of k positions for nodes"
                    + " of larger degree; -1 = all.");

    public static final ConfigOption<Integer> PPR_MAX_FETCH_ITERATIONS = ConfigOptions
            .key("fanout.ppr-max-fetch-iterations")
            .intType()
            .defaultValue(8)
            .withDescription("ppr with --store partitioned: fetch rounds per batch (GiGL max_fetch_iterations), >= 1."
                    + " Round r fetches the lists of the nodes the batch's pushes queued and lack; after the last"
                    + " round the pushes finish with the lists fetched, and a queued node without one keeps its"
                    + " residual. GiGL's default is no limit; the job's rounds are operators (a DataStream has no"
                    + " cycles), so the default is 8 rounds. The memory store, which pushes to convergence, refuses it.");

    public static final ConfigOption<Boolean> RESIDUAL_TOPUP = ConfigOptions.key("fanout.residual-topup")
            .booleanType()
            .defaultValue(true)
            .withDescription("ppr: report score + leftover residual and fill free top-k slots from discovered"
                    + " but unpushed nodes (GiGL enable_residual_topup). --residual-topup false reports settled"
                    + " scores only.");

    // ---- typed PPR (GiGL's typed_channel_ratios and include_sampled_edges) ----

    public static final ConfigOption<String> PPR_CHANNELS = ConfigOptions.key("fanout.ppr-channels")
            .stringType()
            .noDefaultValue()
            .withDescription("ppr on a typed graph: channels (GiGL typed_channel_ratios), each an allowlist of edge"
                    + " types its own push walks, with its share of max-ppr-nodes: edge types joined by +, a ratio"
                    + " after :, channels separated by commas, ratios summing to 1, e.g."
                    + " 'paper__cites__paper:0.6,paper__has_word__word:0.4'. Unset: one walk over every edge type.");

    public static final ConfigOption<Boolean> INCLUDE_SAMPLED_EDGES = ConfigOptions.key("fanout.include-sampled-edges")
            .booleanType()
            .defaultValue(false)
            .withDescription("ppr on a typed graph (GiGL include_sampled_edges): also send the original edges the"
                    + " pushes read whose two ends are both selected nodes, as k-hop sends edges ({etype}.rows/.cols).");

    public static final ConfigOption<io.fanout.graph.EdgeDirection> EDGE_DIR = ConfigOptions.key("fanout.edge-dir")
            .enumType(io.fanout.graph.EdgeDirection.class)
            .defaultValue(io.fanout.graph.EdgeDirection.OUT)
            .withDescription("Direction to expand: out (to the destinations of out-edges) or in (to the"
                    + " sources of in-edges), as GLT/PyG edge_dir.");

    public static final ConfigOption<String> OUTPUT = ConfigOptions.key("fanout.output")
            .stringType()
            .noDefaultValue()
            .withDescription("Write messages as offline .samples files into this directory (Flink"
                    + " FileSink, exactly-once).");

    public static final ConfigOption<OutputMode> OUTPUT_MODE = ConfigOptions.key("fanout.output-mode")
            .enumType(OutputMode.class)
            .defaultValue(OutputMode.ERROR)
            .withDescription("What a fresh run does when the --output directory is not empty: error (refuse to"
                    + " start), overwrite (delete only what Fanout wrote there, part-*.samples and hidden in-progress"
                    + " parts, then write) or append (add this run's part files). A job resumed from a savepoint"
                    + " (-s, execution.state-recovery.path) or restarted after a failure always continues its own"
                    + " output. In every mode a local directory is locked for the run (DIR/.fanout-run.lock): a"
                    + " second run into it while the first runs is refused; overwrite also takes over a lock whose"
                    + " run this client cannot check (another host's, an unreachable cluster's).");

    public static final ConfigOption<Boolean> SERVE = ConfigOptions.key("fanout.serve")
            .booleanType()
            .defaultValue(false)
            .withDescription("Serve messages to trainers over the channel: every sink subtask is a TCP"
                    + " endpoint announced in --registry.");

    /**
     * {@code --channel-tls-cert PATH}: with {@link #CHANNEL_TLS_KEY}, every channel endpoint serves TLS only. The
     * connectors' {@link ChannelOptions#TLS_CERT} itself (listed with the channel options), named here for the job.
     */
    public static final ConfigOption<String> CHANNEL_TLS_CERT = ChannelOptions.TLS_CERT;

    /** {@code --channel-tls-key PATH}: the PEM PKCS#8 key of {@link #CHANNEL_TLS_CERT} ({@link ChannelOptions#TLS_KEY}). */
    public static final ConfigOption<String> CHANNEL_TLS_KEY = ChannelOptions.TLS_KEY;

    public static final ConfigOption<Integer> PARALLELISM = ConfigOptions.key("fanout.parallelism")
            .intType()
            .noDefaultValue()
            .withDescription("Parallelism of the job. Default: Flink's (parallelism.default; in the"
                    + " embedded MiniCluster, the number of cores, lowered with a warning to what its network memory"
                    + " holds). The embedded MiniCluster's network memory is sized for the job (up to a quarter of the"
                    + " JVM's direct memory, at most 1 GiB); a parallelism beyond it, or beyond a standalone cluster's"
                    + " task slots, is refused at submission.");

    public static final ConfigOption<Duration> CHECKPOINT_INTERVAL = ConfigOptions.key("fanout.checkpoint-interval")
            .durationType()
            .defaultValue(Duration.ofSeconds(10))
            .withDescription("Interval of Flink checkpoints. Unless Flink's execution.checkpointing.min-pause is"
                    + " set, a checkpoint starts at least half an interval after the last one ended, and the first"
                    + " no sooner than half an interval after all tasks run. Offline files are committed at"
                    + " checkpoints and at the end of input.");

    public static final ConfigOption<Duration> CHECKPOINT_TIMEOUT = ConfigOptions.key("fanout.checkpoint-timeout")
            .durationType()
            .defaultValue(Duration.ofMinutes(10))
            .withDescription("How long a checkpoint may take before it is aborted and counts as failed. While a"
                    + " trainer pauses, the channel sink it back-pressures cannot take a checkpoint; see"
                    + " fanout.tolerable-failed-checkpoints.");

    public static final ConfigOption<Integer> TOLERABLE_FAILED_CHECKPOINTS = ConfigOptions.key("fanout.tolerable-failed-checkpoints")
            .intType()
            .defaultValue(-1)
            .withDescription("Consecutive failed (e.g. timed-out) checkpoints the job tolerates before it fails over;"
                    + " -1: any number. A trainer that pauses longer than fanout.checkpoint-timeout makes checkpoints"
                    + " time out (the sink waits for it with the barrier behind); failing over would not help it, so"
                    + " by default the job waits and checkpoints again once the trainer pulls.");

    public static final ConfigOption<String> CHECKPOINT_DIR = ConfigOptions.key("fanout.checkpoint-dir")
            .stringType()
            .noDefaultValue()
            .withDescription("Checkpoint storage URI, e.g. file:///var/fanout/checkpoints. Default: the"
                    + " cluster's execution.checkpointing.dir, or in-memory job manager storage locally.");

    public static final ConfigOption<Integer> MAX_BATCHES_PER_SECOND = ConfigOptions.key("fanout.max-batches-per-second")
            .intType()
            .defaultValue(0)
            .withDescription("Cap on the seed batches handed out per second over all source readers, e.g. to"
                    + " pace a feed to its trainers or leave CPU and disk to other jobs. 0: no cap (as fast as the"
                    + " samplers and sinks go).");

    public static final ConfigOption<OnSamplingError> ON_SAMPLING_ERROR = ConfigOptions.key("fanout.on-sampling-error")
            .enumType(OnSamplingError.class)
            .defaultValue(OnSamplingError.MESSAGE)
            .withDescription("When sampling a batch throws: message (send the trainer a message with #SAMPLING_ERROR,"
                    + " the traceback, for that batch; the job goes on) or fail (fail the job).");

    public static final ConfigOption<String> INJECT_SAMPLING_ERRORS = ConfigOptions.key("fanout.inject-sampling-errors")
            .stringType()
            .noDefaultValue()
            .withDescription("For tests: batches whose sampling throws on purpose, as epoch:batch pairs, e.g. 0:3,1:0.");

    /** Options of the job itself, in the order --help lists them. */
    public static List<ConfigOption<?>> jobOptions() {
        return List.of(GRAPH, DIRECTED, NODE_FEATURES, FEATURE_DTYPE, WITH_EDGE, SEEDS, BATCH_SIZE, SHUFFLE, DROP_LAST, EPOCHS,
                TRAINERS, START_EPOCH, SEED, SAMPLER, STORE, STATE_BACKEND, PARTITIONED_BUCKET_SIZE, PARTITIONED_SPLIT_SIZE, PARTITIONED_SEED_CHUNK, PARTITIONED_NODE_IDS_DIR, PARTITIONED_CACHE_MB, PARTITIONED_COMPACT_AFTER_LOAD, PARTITIONED_LOAD_ONLY, GRAPH_UPDATES, GRAPH_UPDATES_INTERVAL,
                GRAPH_UPDATES_SOCKET, FANOUT, SEED_TYPE, LINK_SEEDS, LINK_TYPE, NEG_SAMPLING,
                NEG_AMOUNT, ABLP_POSITIVE_TYPE, ABLP_NEGATIVE_TYPE, ABLP_POSITIVE_EDGES, ABLP_NEGATIVE_EDGES,
                REPLACE,
                WEIGHT_COLUMN, DISJOINT, SUBGRAPH_TYPE, TIME_COLUMN, SEED_TIME, TEMPORAL_STRATEGY, TIMELESS_EDGE_TYPES, ALPHA, EPS,
                MAX_PPR_NODES, PPR_MAX_NEIGHBORS, PPR_MAX_FETCH_ITERATIONS, RESIDUAL_TOPUP, PPR_CHANNELS, INCLUDE_SAMPLED_EDGES, EDGE_DIR, OUTPUT, OUTPUT_MODE, SERVE, PARALLELISM,
                CHECKPOINT_INTERVAL, CHECKPOINT_TIMEOUT, TOLERABLE_FAILED_CHECKPOINTS, CHECKPOINT_DIR,
                MAX_BATCHES_PER_SECOND, ON_SAMPLING_ERROR, INJECT_SAMPLING_ERRORS);
    }
}
