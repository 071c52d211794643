package io.fanout.config;

import static io.fanout.config.FanoutJobConfig.get;
import static io.fanout.config.FanoutJobConfig.name;

import io.fanout.graph.typed.EdgeType;
import io.fanout.graph.typed.TypedGraphFiles;
import io.fanout.sampling.hetero.TypedFanouts;
import io.fanout.sampling.link.NegativeSampling;
import io.fanout.sampling.ppr.PprChannels;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.SortedSet;
import org.apache.flink.configuration.Configuration;

/**
 * The validated options of a typed (heterogeneous) graph: its files, the per-edge-type fanouts, the seed node type
 * or the link seeds with their negatives. Kept apart from {@link FanoutJobConfig}, which holds one of these (or
 * null for a homogeneous graph); every error names the option and the value.
 */
public final class TypedGraphOptions {
    /** The graph's typed files (found by name). */
    public final TypedGraphFiles files;
    /** Edge type name -> per-hop fanouts, every edge type of the graph. */
    public final Map<String, int[]> fanouts;
    /** The seeds' node type (with link seeds, the link type's source type). */
    public final String seedType;
    /** Link prediction: the seed-edge file, or null. */
    public final Path linkSeeds;
    /** Link prediction: the seed edges' type, or null. */
    public final EdgeType linkType;
    public final NegativeSampling negSampling;
    /** Negatives per positive link seed. */
    public final double negAmount;
    /** Typed PPR channels (--ppr-channels), or null for one walk over every edge type. */
    public final PprChannels pprChannels;
    /** Typed PPR: also send the original edges read between selected nodes (--include-sampled-edges). */
    public final boolean includeSampledEdges;
    /** ABLP: the positive label edge type (anchor first), or null without ABLP. */
    public final EdgeType ablpPositive;
    /** ABLP: the negative label edge type, or null. */
    public final EdgeType ablpNegative;
    /** Temporal sampling: the edge types (src__rel__dst) declared timeless; empty when none. */
    public final java.util.SortedSet<String> timelessTypes;

    private TypedGraphOptions(Configuration conf, Path graph, TypedGraphFiles files, SamplerType sampler,
            Path nodeFeatures) {
        this.files = files;
        this.ablpPositive = supervisionType(conf, FanoutOptions.ABLP_POSITIVE_TYPE, files);
        this.ablpNegative = supervisionType(conf, FanoutOptions.ABLP_NEGATIVE_TYPE, files);
        checkSupervision(conf);
        String fanoutValue = get(conf, FanoutOptions.FANOUT);
        try {
            TypedFanouts parsed = TypedFanouts.parse(fanoutValue);
            for (EdgeType label : labelTypes()) {
                if (parsed.names(label)) {
                    throw new IllegalArgumentException("edge type " + label + " is a supervision (label) edge type of"
                            + " ABLP, never traversed: give it no fanout");
                }
            }
            this.fanouts = parsed.resolve(messagePassingTypes());
        } catch (IllegalArgumentException e) {
            throw new ConfigException("Invalid value '" + fanoutValue + "' for option " + name(FanoutOptions.FANOUT)
                    + ": " + e.getMessage(), e);
        }
        String links = get(conf, FanoutOptions.LINK_SEEDS);
        this.linkSeeds = links == null || links.isBlank() ? null : Path.of(links);
        if (linkSeeds != null) {
            if (!Files.isRegularFile(linkSeeds)) {
                throw new ConfigException("Invalid value '" + links + "' for option " + name(FanoutOptions.LINK_SEEDS)
                        + ": no such file");
            }
            if (get(conf, FanoutOptions.SEEDS) != null || get(conf, FanoutOptions.SEED_TYPE) != null) {
                throw new ConfigException("Option " + name(FanoutOptions.LINK_SEEDS) + " replaces "
                        + name(FanoutOptions.SEEDS) + " and " + name(FanoutOptions.SEED_TYPE) + ": give seed edges"
                        + " or seed nodes, not both");
            }
            if (ablpPositive != null) {
                throw new ConfigException("Option " + name(FanoutOptions.LINK_SEEDS) + " and "
                        + name(FanoutOptions.ABLP_POSITIVE_TYPE) + " are two kinds of link prediction: seed edges"
                        + " (GLT) or anchors with label edges (GiGL ABLP), not both");
            }
            this.linkType = linkType(conf, files);
            this.seedType = linkType.src();
        } else if (ablpPositive != null) {
            this.linkType = null;
            String given = get(conf, FanoutOptions.SEED_TYPE);
            if (given != null && !given.trim().equals(ablpPositive.src())) {
                throw new ConfigException("Invalid value '" + given + "' for option " + name(FanoutOptions.SEED_TYPE)
                        + ": ABLP's seeds are the anchors, of the source type of " + name(FanoutOptions.ABLP_POSITIVE_TYPE)
                        + " " + ablpPositive + " (" + ablpPositive.src() + ")");
            }
            this.seedType = ablpPositive.src();
        } else {
            this.linkType = null;
            this.seedType = seedType(conf, files);
        }
        this.negSampling = negSampling(conf, linkSeeds);
        this.negAmount = negAmount(conf, negSampling);
        if (ablpPositive != null && sampler != SamplerType.KHOP) {
            throw new ConfigException("Option " + name(FanoutOptions.ABLP_POSITIVE_TYPE) + " is k-hop only (GiGL's"
                    + " DistABLPLoader): got " + name(FanoutOptions.SAMPLER) + " " + sampler);
        }
        this.pprChannels = pprChannels(conf, files, sampler);
        this.includeSampledEdges = get(conf, FanoutOptions.INCLUDE_SAMPLED_EDGES);
        if (sampler == SamplerType.PPR && linkSeeds != null) {
            throw new ConfigException("Option " + name(FanoutOptions.LINK_SEEDS) + " is k-hop only: typed PPR samples"
                    + " around seed nodes (" + name(FanoutOptions.SAMPLER) + " is ppr)");
        }
        if (sampler != SamplerType.PPR && includeSampledEdges) {
            throw new ConfigException("Option " + name(FanoutOptions.INCLUDE_SAMPLED_EDGES) + " is for "
                    + name(FanoutOptions.SAMPLER) + " ppr (k-hop always sends its sampled edges)");
        }
        this.timelessTypes = timelessTypes(conf, files);
        checkTemporalSeeds(conf);
        if (nodeFeatures != null) {
            throw new ConfigException("Option " + name(FanoutOptions.NODE_FEATURES) + " is for homogeneous graphs:"
                    + " a typed graph's node files are the nodes.<type>.tsv files in its directory (" + graph + ")");
        }
    }

    /**
     * The typed options of {@code graph}, or null when it is homogeneous (then every typed-only option must be
     * unset).
     */
    static TypedGraphOptions from(Configuration conf, Path graph, SamplerType sampler, Path nodeFeatures) {
        TypedGraphFiles files;
        try {
            files = TypedGraphFiles.isTyped(graph) ? TypedGraphFiles.of(graph) : null;
        } catch (IOException e) {
            throw new ConfigException("Invalid value '" + graph + "' for option " + name(FanoutOptions.GRAPH) + ": "
                    + e.getMessage(), e);
        }
        if (files != null) {
            return new TypedGraphOptions(conf, graph, files, sampler, nodeFeatures);
        }
        String homogeneous = " needs a typed graph (edges.<src>__<rel>__<dst>.tsv files); " + graph + " is homogeneous";
        String fanoutValue = get(conf, FanoutOptions.FANOUT);
        if (TypedFanouts.isPerType(fanoutValue)) {
            throw new ConfigException("Invalid value '" + fanoutValue + "' for option " + name(FanoutOptions.FANOUT)
                    + ": per-edge-type fanouts need a typed graph (edges.<src>__<rel>__<dst>.tsv files); " + graph
                    + " is homogeneous");
        }
        if (get(conf, FanoutOptions.SEED_TYPE) != null) {
            throw new ConfigException("Option " + name(FanoutOptions.SEED_TYPE) + homogeneous);
        }
        for (org.apache.flink.configuration.ConfigOption<String> ablp
                : java.util.List.of(FanoutOptions.ABLP_POSITIVE_TYPE, FanoutOptions.ABLP_NEGATIVE_TYPE)) {
            if (get(conf, ablp) != null) {
                throw new ConfigException("Option " + name(ablp) + homogeneous + " (GiGL's ABLP keeps label edges in"
                        + " their own edge types)");
            }
        }
        if (get(conf, FanoutOptions.LINK_TYPE) != null) {
            throw new ConfigException("Option " + name(FanoutOptions.LINK_TYPE) + homogeneous
                    + " (a plain graph's link seeds are its one edge type)");
        }
        if (get(conf, FanoutOptions.PPR_CHANNELS) != null) {
            throw new ConfigException("Option " + name(FanoutOptions.PPR_CHANNELS) + homogeneous);
        }
        if (get(conf, FanoutOptions.INCLUDE_SAMPLED_EDGES)) {
            throw new ConfigException("Option " + name(FanoutOptions.INCLUDE_SAMPLED_EDGES) + homogeneous
                    + " (homogeneous PPR sends the PPR edges only, as GiGL)");
        }
        return null;
    }

    /**
     * --timeless-edge-types, checked against the graph's edge types and the time column: with --time-column every
     * walked edge type's file must have that column or be named here, so no relation is followed at every time
     * unless the user says so.
     */
    private java.util.SortedSet<String> timelessTypes(Configuration conf, TypedGraphFiles files) {
        String value = get(conf, FanoutOptions.TIMELESS_EDGE_TYPES);
        String timeColumn = get(conf, FanoutOptions.TIME_COLUMN);
        timeColumn = timeColumn == null || timeColumn.isBlank() ? null : timeColumn.trim();
        java.util.SortedSet<String> out = new java.util.TreeSet<>();
        if (value != null && !value.isBlank()) {
            if (timeColumn == null) {
                throw new ConfigException("Option " + name(FanoutOptions.TIMELESS_EDGE_TYPES) + " needs "
                        + name(FanoutOptions.TIME_COLUMN) + ": it names the edge types a temporal run follows at any"
                        + " time");
            }
            for (String part : value.split(",")) {
                out.add(edgeType(FanoutOptions.TIMELESS_EDGE_TYPES, part, files.edges().keySet()).toString());
            }
        }
        if (timeColumn == null) {
            return out;
        }
        java.util.List<String> missing = new java.util.ArrayList<>();
        for (EdgeType type : messagePassingTypes()) {
            Path file = files.edges().get(type);
            java.util.List<String> columns;
            try {
                columns = io.fanout.graph.GraphLoader.headerColumns(file);
            } catch (IOException e) {
                throw new ConfigException("Invalid value '" + file + "' for option " + name(FanoutOptions.GRAPH) + ": "
                        + e.getMessage(), e);
            }
            boolean hasTime = columns.contains(timeColumn);
            if (!hasTime && !out.contains(type.toString())) {
                missing.add(type + " (" + file.getFileName() + ": columns " + String.join(",", columns) + ")");
            }
        }
        if (!missing.isEmpty()) {
            throw new ConfigException("Invalid value '" + timeColumn + "' for option " + name(FanoutOptions.TIME_COLUMN)
                    + ": edge types without that column: " + String.join("; ", missing) + ". A temporal run follows"
                    + " an edge type only up to each seed's time; name the static ones in "
                    + name(FanoutOptions.TIMELESS_EDGE_TYPES) + " (e.g. --timeless-edge-types "
                    + missing.get(0).substring(0, missing.get(0).indexOf(' ')) + ") to follow them at any time");
        }
        return out;
    }

    /**
     * Temporal and disjoint sampling of a typed graph take trees of seed nodes or of link seeds' endpoints; ABLP
     * anchors (whose label nodes join the seeds) are not implemented with them yet: refused by name.
     */
    private void checkTemporalSeeds(Configuration conf) {
        String time = get(conf, FanoutOptions.TIME_COLUMN);
        boolean temporal = time != null && !time.isBlank();
        boolean disjoint = get(conf, FanoutOptions.DISJOINT);
        if (!temporal && !disjoint) {
            return;
        }
        org.apache.flink.configuration.ConfigOption<?> mode = temporal ? FanoutOptions.TIME_COLUMN
                : FanoutOptions.DISJOINT;
        if (ablpPositive != null) {
            throw new ConfigException("Option " + name(mode) + " with " + name(FanoutOptions.ABLP_POSITIVE_TYPE)
                    + " is not implemented yet: temporal and disjoint typed sampling take seed nodes without"
                    + " label edges");
        }
    }

    /** --ppr-channels, checked against the graph's edge types (ppr only). */
    private static PprChannels pprChannels(Configuration conf, TypedGraphFiles files, SamplerType sampler) {
        String value = get(conf, FanoutOptions.PPR_CHANNELS);
        if (value == null) {
            return null;
        }
        if (sampler != SamplerType.PPR) {
            throw new ConfigException("Option " + name(FanoutOptions.PPR_CHANNELS) + " is for "
                    + name(FanoutOptions.SAMPLER) + " ppr, not " + sampler.name().toLowerCase(java.util.Locale.ROOT));
        }
        try {
            return PprChannels.parse(value, files.edges().keySet());
        } catch (IllegalArgumentException e) {
            throw new ConfigException("Invalid value '" + value + "' for option " + name(FanoutOptions.PPR_CHANNELS)
                    + ": " + e.getMessage(), e);
        }
    }

    /** --neg-amount, checked for the negative sampling mode (a whole number for triplets). */
    static double negAmount(Configuration conf, NegativeSampling negSampling) {
        double negAmount = get(conf, FanoutOptions.NEG_AMOUNT);
        if (!(negAmount > 0) || Double.isInfinite(negAmount)
                || negSampling == NegativeSampling.TRIPLET && negAmount != Math.rint(negAmount)) {
            String raw = conf.toMap().getOrDefault(FanoutOptions.NEG_AMOUNT.key(), String.valueOf(negAmount));
            throw new ConfigException("Invalid value '" + raw + "' for option " + name(FanoutOptions.NEG_AMOUNT)
                    + ": must be " + (negSampling == NegativeSampling.TRIPLET
                    ? "a whole number >= 1 for triplet negatives" : "> 0"));
        }
        return negAmount;
    }

    static NegativeSampling negSampling(Configuration conf, Path linkSeeds) {
        NegativeSampling mode = get(conf, FanoutOptions.NEG_SAMPLING);
        if (mode != NegativeSampling.NONE && linkSeeds == null) {
            throw new ConfigException("Option " + name(FanoutOptions.NEG_SAMPLING) + " " + mode + " needs "
                    + name(FanoutOptions.LINK_SEEDS) + ": negatives are drawn for seed edges");
        }
        return mode;
    }

    /** --link-type, checked against the graph's edge types; optional when there is one. */
    private static EdgeType linkType(Configuration conf, TypedGraphFiles files) {
        String value = get(conf, FanoutOptions.LINK_TYPE);
        Set<EdgeType> types = files.edges().keySet();
        if (value == null || value.isBlank()) {
            if (types.size() == 1) {
                return types.iterator().next();
            }
            throw new ConfigException("Option " + name(FanoutOptions.LINK_TYPE) + " is required with "
                    + name(FanoutOptions.LINK_SEEDS) + ": the graph has edge types " + types);
        }
        return edgeType(FanoutOptions.LINK_TYPE, value, types);
    }

    /** The ABLP label edge types (positive, then negative when given), never traversed; empty without ABLP. */
    public java.util.List<EdgeType> labelTypes() {
        java.util.List<EdgeType> out = new java.util.ArrayList<>();
        if (ablpPositive != null) {
            out.add(ablpPositive);
        }
        if (ablpNegative != null) {
            out.add(ablpNegative);
        }
        return out;
    }

    /** The edge types the k-hop sampler walks: every edge type of the graph but the label types, in name order. */
    public java.util.SortedSet<EdgeType> messagePassingTypes() {
        java.util.SortedSet<EdgeType> out = new java.util.TreeSet<>(files.edges().keySet());
        labelTypes().forEach(out::remove);
        return out;
    }

    /** An --ablp-*-type value, checked against the graph's edge types, or null when unset. */
    private static EdgeType supervisionType(Configuration conf, org.apache.flink.configuration.ConfigOption<String> option,
            TypedGraphFiles files) {
        String value = get(conf, option);
        if (value == null || value.isBlank()) {
            return null;
        }
        Set<EdgeType> types = files.edges().keySet();
        return edgeType(option, value, types);
    }

    /** {@code value} of {@code option} as one of the graph's edge types ({@code src__rel__dst}). */
    private static EdgeType edgeType(org.apache.flink.configuration.ConfigOption<String> option, String value,
            Set<EdgeType> types) {
        try {
            EdgeType type = EdgeType.parse(value.trim());
            if (!types.contains(type)) {
                throw new IllegalArgumentException("not an edge type of the graph (its edge types: " + types + ")");
            }
            return type;
        } catch (IllegalArgumentException e) {
            throw new ConfigException("Invalid value '" + value + "' for option " + name(option) + ": "
                    + e.getMessage(), e);
        }
    }

    /** The ABLP options agree with each other and leave an edge type to traverse. */
    private void checkSupervision(Configuration conf) {
        if (ablpNegative != null && ablpPositive == null) {
            throw new ConfigException("Option " + name(FanoutOptions.ABLP_NEGATIVE_TYPE) + " needs "
                    + name(FanoutOptions.ABLP_POSITIVE_TYPE) + ": negative labels belong to the anchors of positive"
                    + " ones");
        }
        if (ablpPositive != null && messagePassingTypes().isEmpty()) {
            throw new ConfigException("Invalid value '" + get(conf, FanoutOptions.ABLP_POSITIVE_TYPE) + "' for option "
                    + name(FanoutOptions.ABLP_POSITIVE_TYPE) + ": no edge type is left to traverse (the graph's edge"
                    + " types: " + files.edges().keySet() + "; label edge types are never traversed)");
        }
        if (ablpNegative == null) {
            return;
        }
        String value = get(conf, FanoutOptions.ABLP_NEGATIVE_TYPE);
        if (ablpNegative.equals(ablpPositive)) {
            throw new ConfigException("Invalid value '" + value + "' for option " + name(FanoutOptions.ABLP_NEGATIVE_TYPE)
                    + ": the same edge type as " + name(FanoutOptions.ABLP_POSITIVE_TYPE));
        }
        if (!ablpNegative.src().equals(ablpPositive.src()) || !ablpNegative.dst().equals(ablpPositive.dst())) {
            throw new ConfigException("Invalid value '" + value + "' for option " + name(FanoutOptions.ABLP_NEGATIVE_TYPE)
                    + ": must connect the node types of " + name(FanoutOptions.ABLP_POSITIVE_TYPE) + " " + ablpPositive
                    + " (" + ablpPositive.src() + " to " + ablpPositive.dst() + ")");
        }
    }

    /** --seed-type, checked against the graph's node types; optional when there is one. */
    private static String seedType(Configuration conf, TypedGraphFiles files) {
        String value = get(conf, FanoutOptions.SEED_TYPE);
        SortedSet<String> types = files.nodeTypes();
        if (value == null || value.isBlank()) {
            if (types.size() == 1) {
                return types.first();
            }
            throw new ConfigException("Option " + name(FanoutOptions.SEED_TYPE) + " is required: the typed graph "
                    + files.dir() + " has node types " + types + "; say which the seeds are, e.g. --seed-type "
                    + types.first());
        }
        if (!types.contains(value.trim())) {
            throw new ConfigException("Invalid value '" + value + "' for option " + name(FanoutOptions.SEED_TYPE)
                    + ": not a node type of the graph (its node types: " + types + ")");
        }
        return value.trim();
    }
}
