package io.fanout.graph.typed;

import io.fanout.graph.CsrGraph;
import java.util.Objects;

/**
 * One edge type's adjacency in the sampling direction: rows are the nodes of {@link #keyType()} (the type a hop
 * expands from: the source type for {@code out}, the destination type for {@code in}), neighbours are nodes of
 * {@link #valueType()} stored as {@link #valueBase()} + their index in that type.
 *
 * <p>Between two node types the CSR spans both index spaces ({@code valueBase} = number of key nodes; the value
 * nodes' rows are empty), so a homogeneous sampler walks it without mistaking a neighbour for a key node of
 * the same index. Within one node type the base is 0 and the CSR is the plain one.
 */
public final class TypedAdjacency {
    private final EdgeType type;
    private final String keyType;
    private final String valueType;
    private final CsrGraph csr;
    private final int valueBase;

    public TypedAdjacency(EdgeType type, String keyType, String valueType, CsrGraph csr, int valueBase) {
        this.type = Objects.requireNonNull(type, "type");
        this.keyType = Objects.requireNonNull(keyType, "keyType");
        this.valueType = Objects.requireNonNull(valueType, "valueType");
        this.csr = Objects.requireNonNull(csr, "csr");
        this.valueBase = valueBase;
        if (keyType.equals(valueType) != (valueBase == 0)) {
            throw new IllegalArgumentException("value base " + valueBase + " for " + type + " from " + keyType
                    + " to " + valueType + ": 0 exactly when both are one node type");
        }
    }

    /** The edge type as the graph files name it. */
    public EdgeType type() {
        return type;
    }

    /** The node type a hop expands from. */
    public String keyType() {
        return keyType;
    }

    /** The node type of the neighbours. */
    public String valueType() {
        return valueType;
    }

    public CsrGraph csr() {
        return csr;
    }

    /** Added to a neighbour's index in {@link #valueType()} to store it in {@link #csr()}. */
    public int valueBase() {
        return valueBase;
    }

    /** Number of nodes of the key type (rows that can have neighbours). */
    public int numKeyNodes() {
        return valueBase == 0 ? csr.numNodes() : valueBase;
    }

    @Override
    public String toString() {
        return "TypedAdjacency{" + type + ", " + keyType + " -> " + valueType + ", " + csr + "}";
    }
}
