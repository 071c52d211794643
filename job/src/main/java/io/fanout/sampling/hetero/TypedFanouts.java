package io.fanout.sampling.hetero;

import io.fanout.graph.typed.EdgeType;
import java.io.Serializable;
import java.util.Arrays;
import java.util.Collection;
import java.util.Map;
import java.util.TreeMap;

/**
 * Per-edge-type fanouts of a typed graph (GLT/PyG {@code num_neighbors} as a dict): either one list for every edge
 * type ({@code 15,10}) or one list per type, {@code paper__cites__paper:15,10;paper__has_word__word:5,0}; every
 * type has the same number of hops. An entry is the neighbours per node at that hop, {@code -1} = all, {@code 0} =
 * none (the type is not walked at that hop).
 */
public final class TypedFanouts implements Serializable {
    private static final long serialVersionUID = 1L;

    /** The list for every edge type, or null when given per type. */
    private final int[] all;
    /** Edge type name -> list, when given per type. */
    private final Map<String, int[]> byType;

    private TypedFanouts(int[] all, Map<String, int[]> byType) {
        this.all = all;
        this.byType = byType;
    }

    /** True when {@code text} is the per-type form (it names an edge type). */
    public static boolean isPerType(String text) {
        return text.contains(":");
    }

    /**
     * Parses either form.
     *
     * @throws IllegalArgumentException naming the bad part
     */
    public static TypedFanouts parse(String text) {
        String trimmed = text.trim();
        if (!isPerType(trimmed)) {
            return new TypedFanouts(parseList(trimmed, "fanouts"), null);
        }
        Map<String, int[]> byType = new TreeMap<>();
        int hops = -1;
        for (String entry : trimmed.split(";", -1)) {
            entry = entry.trim();
            int colon = entry.indexOf(':');
            if (colon < 0) {
                throw new IllegalArgumentException("entry '" + entry + "' is not <src>__<rel>__<dst>:<list>, e.g."
                        + " paper__cites__paper:15,10 (entries are separated by ';')");
            }
            String type = EdgeType.parse(entry.substring(0, colon).trim()).toString();
            int[] list = parseList(entry.substring(colon + 1).trim(), type);
            if (byType.put(type, list) != null) {
                throw new IllegalArgumentException("edge type " + type + " is given twice");
            }
            if (hops >= 0 && list.length != hops) {
                throw new IllegalArgumentException("every edge type needs the same number of hops: " + type + " has "
                        + list.length + ", an earlier type " + hops);
            }
            hops = list.length;
        }
        return new TypedFanouts(null, byType);
    }

    private static int[] parseList(String text, String what) {
        if (text.isEmpty()) {
            throw new IllegalArgumentException(what + ": empty list (expected e.g. 15,10)");
        }
        String[] parts = text.split(",", -1);
        int[] out = new int[parts.length];
        for (int i = 0; i < parts.length; i++) {
            try {
                out[i] = Integer.parseInt(parts[i].trim());
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(what + ": hop " + (i + 1) + " '" + parts[i].trim()
                        + "' is not an integer", e);
            }
            if (out[i] < -1) {
                throw new IllegalArgumentException(what + ": hop " + (i + 1) + " is " + out[i]
                        + "; must be >= 0, or -1 for all neighbours");
            }
        }
        return out;
    }

    /** True when the per-type form gives {@code type} a list. */
    public boolean names(EdgeType type) {
        return byType != null && byType.containsKey(type.toString());
    }

    /**
     * The list of every edge type of the graph, by type name.
     *
     * @throws IllegalArgumentException when a named type is not one of {@code types} or one of them is missing
     */
    public Map<String, int[]> resolve(Collection<EdgeType> types) {
        Map<String, int[]> out = new TreeMap<>();
        for (EdgeType t : types) {
            int[] list = all != null ? all : byType.get(t.toString());
            if (list == null) {
                throw new IllegalArgumentException("no fanouts for edge type " + t + " (the graph's edge types: "
                        + types + "; give every one, or one list for all)");
            }
            out.put(t.toString(), list.clone());
        }
        if (byType != null) {
            for (String named : byType.keySet()) {
                if (!out.containsKey(named)) {
                    throw new IllegalArgumentException("the graph has no edge type " + named + " (its edge types: "
                            + types + ")");
                }
            }
        }
        return out;
    }

    @Override
    public String toString() {
        if (all != null) {
            return Arrays.toString(all);
        }
        StringBuilder sb = new StringBuilder();
        byType.forEach((t, l) -> sb.append(sb.length() == 0 ? "" : ";").append(t).append(':')
                .append(Arrays.toString(l).replaceAll("[\\[\\] ]", "")));
        return sb.toString();
    }
}
