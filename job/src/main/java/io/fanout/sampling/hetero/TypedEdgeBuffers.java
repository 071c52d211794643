package io.fanout.sampling.hetero;

import io.fanout.graph.typed.EdgeType;
import io.fanout.graph.typed.TypedAdjacency;
import it.unimi.dsi.fastutil.ints.IntArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A typed sample's edges while they are drawn, per edge type (in the samplers' type order): local rows and cols,
 * CSR positions when edge ids are kept, and the edges each hop added.
 */
final class TypedEdgeBuffers {
    final IntArrayList[] rows;
    final IntArrayList[] cols;
    /** Per type, or null per type when edge ids are not kept (nothing to record per edge). */
    final IntArrayList[] positions;
    final int[][] perHop;

    TypedEdgeBuffers(int types, int hops, boolean trackEdges) {
        rows = new IntArrayList[types];
        cols = new IntArrayList[types];
        positions = new IntArrayList[types];
        perHop = new int[types][hops];
        for (int t = 0; t < types; t++) {
            rows[t] = new IntArrayList();
            cols[t] = new IntArrayList();
            positions[t] = trackEdges ? new IntArrayList() : null;
        }
    }

    /** The edges by the name each type is reported under, as {@link HeteroSubgraph} keeps them. */
    Map<EdgeType, HeteroSubgraph.Edges> edges(List<TypedAdjacency> adjacency, List<EdgeType> reported) {
        Map<EdgeType, HeteroSubgraph.Edges> out = new TreeMap<>();
        for (int t = 0; t < rows.length; t++) {
            out.put(reported.get(t), new HeteroSubgraph.Edges(adjacency.get(t), rows[t].toIntArray(),
                    cols[t].toIntArray(), positions[t] == null ? null : positions[t].toIntArray(), perHop[t]));
        }
        return out;
    }
}
