package io.fanout.sampling.ppr;

import io.fanout.graph.typed.EdgeType;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;

/**
 * Typed PPR channels (GiGL's {@code typed_channel_ratios}): each channel is an allowlist of edge types its own
 * push may walk, with a ratio of {@code max_ppr_nodes} as its target count.
 *
 * <p>Written {@code a__r__b+c__s__d:0.6,e__t__f:0.4}: channels separated by {@code ,}, the edge types of one
 * channel by {@code +}, its ratio after {@code :}. Channel order is the order written (it is the order of the
 * per-channel {@code edge_attr} columns). Ratios are in (0, 1] and sum to 1; an edge type may be in several
 * channels, but not twice in one, and two channels may not have the same edge types.
 */
public final class PprChannels {
    /** One channel: its edge types (in the order written) and its ratio. */
    public static final class Channel {
        public final List<EdgeType> edgeTypes;
        public final double ratio;

        Channel(List<EdgeType> edgeTypes, double ratio) {
            this.edgeTypes = Collections.unmodifiableList(new ArrayList<>(edgeTypes));
            this.ratio = ratio;
        }

        @Override
        public String toString() {
            StringBuilder sb = new StringBuilder();
            for (EdgeType t : edgeTypes) {
                sb.append(sb.length() == 0 ? "" : "+").append(t);
            }
            return sb.append(':').append(ratio).toString();
        }
    }

    private final List<Channel> channels;

    private PprChannels(List<Channel> channels) {
        this.channels = Collections.unmodifiableList(channels);
    }

    public List<Channel> channels() {
        return channels;
    }

    public int size() {
        return channels.size();
    }

    /**
     * Parses and checks a channel list against the graph's edge types.
     *
     * @throws IllegalArgumentException saying which part is wrong (an unknown edge type names the valid ones)
     */
    public static PprChannels parse(String text, Collection<EdgeType> graphTypes) {
        if (text == null || text.isBlank()) {
            throw new IllegalArgumentException("no channels (write edge types with a ratio, e.g. a__r__b:0.5,c__s__d:0.5)");
        }
        Set<EdgeType> known = new TreeSet<>(graphTypes);
        List<Channel> channels = new ArrayList<>();
        List<Set<EdgeType>> seen = new ArrayList<>();
        double sum = 0;
        for (String part : text.split(",", -1)) {
            String entry = part.strip();
            int colon = entry.lastIndexOf(':');
            if (entry.isEmpty() || colon < 0) {
                throw new IllegalArgumentException("channel '" + entry + "' is not <edge types joined by +>:<ratio>");
            }
            String ratioText = entry.substring(colon + 1).strip();
            double ratio;
            try {
                ratio = Double.parseDouble(ratioText);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("channel '" + entry + "': ratio '" + ratioText + "' is not a number");
            }
            if (!(ratio > 0 && ratio <= 1)) {
                throw new IllegalArgumentException("channel '" + entry + "': ratio must be in (0, 1], got " + ratioText);
            }
            LinkedHashSet<EdgeType> types = new LinkedHashSet<>();
            for (String name : entry.substring(0, colon).split("\\+", -1)) {
                EdgeType type;
                try {
                    type = EdgeType.parse(name.strip());
                } catch (IllegalArgumentException e) {
                    throw new IllegalArgumentException("channel '" + entry + "': " + e.getMessage()
                            + " (edge types of the graph: " + known + ")");
                }
                if (!known.contains(type)) {
                    throw new IllegalArgumentException("channel '" + entry + "': " + type + " is not an edge type of the"
                            + " graph (its edge types: " + known + ")");
                }
                if (!types.add(type)) {
                    throw new IllegalArgumentException("channel '" + entry + "' lists " + type + " twice");
                }
            }
            Set<EdgeType> asSet = new TreeSet<>(types);
            if (seen.contains(asSet)) {
                throw new IllegalArgumentException("channel '" + entry + "' has the same edge types as an earlier channel");
            }
            seen.add(asSet);
            channels.add(new Channel(new ArrayList<>(types), ratio));
            sum += ratio;
        }
        if (Math.abs(sum - 1.0) > 1e-9) {
            throw new IllegalArgumentException(String.format(Locale.ROOT, "the ratios must sum to 1, they sum to %s", sum));
        }
        return new PprChannels(channels);
    }

    /**
     * Each channel's target count: {@code floor(ratio * maxPprNodes)}, the remaining slots (so that the counts sum
     * to maxPprNodes) to the largest fractional remainders, ties to the earlier channel. GiGL's
     * {@code compute_typed_channel_target_counts}.
     */
    public int[] targetCounts(int maxPprNodes) {
        int c = channels.size();
        double[] raw = new double[c];
        int[] counts = new int[c];
        int assigned = 0;
        for (int i = 0; i < c; i++) {
            raw[i] = channels.get(i).ratio * maxPprNodes;
            counts[i] = (int) Math.floor(raw[i]);
            assigned += counts[i];
        }
        Integer[] order = new Integer[c];
        for (int i = 0; i < c; i++) {
            order[i] = i;
        }
        java.util.Arrays.sort(order, (a, b) -> {
            int byRemainder = Double.compare(raw[b] - counts[b], raw[a] - counts[a]);
            return byRemainder != 0 ? byRemainder : Integer.compare(a, b);
        });
        for (int i = 0; i < maxPprNodes - assigned && i < c; i++) {
            counts[order[i]]++;
        }
        return counts;
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder();
        for (Channel ch : channels) {
            sb.append(sb.length() == 0 ? "" : ",").append(ch);
        }
        return sb.toString();
    }
}
