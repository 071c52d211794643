package io.fanout.graph.typed;

import java.io.Serializable;
import java.util.Objects;

/**
 * A typed graph's edge type {@code (src, rel, dst)}, written {@code src__rel__dst} as in GLT and PyG message keys
 * and in the file names {@code edges.<src>__<rel>__<dst>.tsv}.
 */
public final class EdgeType implements Serializable, Comparable<EdgeType> {
    private static final long serialVersionUID = 1L;
    /** GLT's and PyG's separator of the three parts of an edge type in a string key. */
    public static final String SEPARATOR = "__";

    private final String src;
    private final String rel;
    private final String dst;

    public EdgeType(String src, String rel, String dst) {
        this.src = checkPart(src, "source node type");
        this.rel = checkPart(rel, "relation");
        this.dst = checkPart(dst, "destination node type");
    }

    private static String checkPart(String part, String what) {
        Objects.requireNonNull(part, what);
        if (part.isEmpty() || part.contains(SEPARATOR) || part.contains(".") || part.contains(":")
                || part.contains(";") || part.contains(",") || part.contains("/") || !part.strip().equals(part)) {
            throw new IllegalArgumentException(what + " '" + part + "' must be non-empty, without '__', '.', ':', ';',"
                    + " ',', '/' or surrounding blanks");
        }
        return part;
    }

    /**
     * Parses {@code src__rel__dst}.
     *
     * @throws IllegalArgumentException naming the text when it is not three non-empty parts joined by {@code __}
     */
    public static EdgeType parse(String text) {
        String[] parts = text.split(SEPARATOR, -1);
        if (parts.length != 3) {
            throw new IllegalArgumentException("edge type '" + text + "' is not <src>__<rel>__<dst>");
        }
        try {
            return new EdgeType(parts[0], parts[1], parts[2]);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("edge type '" + text + "': " + e.getMessage(), e);
        }
    }

    public String src() {
        return src;
    }

    public String rel() {
        return rel;
    }

    public String dst() {
        return dst;
    }

    /**
     * The type GLT gives these edges walked backwards ({@code reverse_edge_type}): {@code (dst, rev_rel, src)},
     * a {@code rev_} prefix removed rather than doubled; an edge type between one node type keeps its name.
     * Sampling along out-edges reports edges under the reversed type, so that PyG messages flow from the
     * sampled neighbours to the seeds.
     */
    public EdgeType reversed() {
        if (src.equals(dst)) {
            return this;
        }
        String reversedRel = rel.startsWith("rev_") ? rel.substring(4) : "rev_" + rel;
        return new EdgeType(dst, reversedRel, src);
    }

    @Override
    public int compareTo(EdgeType o) {
        return toString().compareTo(o.toString());
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof EdgeType && toString().equals(o.toString());
    }

    @Override
    public int hashCode() {
        return toString().hashCode();
    }

    @Override
    public String toString() {
        return src + SEPARATOR + rel + SEPARATOR + dst;
    }
}
