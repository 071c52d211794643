package io.fanout.store;

import io.fanout.features.NodeFeatures;

/**
 * What {@link SharedGraphs} caches and the job summary reports: a homogeneous {@link GraphStore} or a typed
 * {@link TypedGraphStore}.
 */
public interface LoadedGraph {
    /** Nodes over every node type. */
    int numNodes();

    /** Stored (directed) edges over every edge type. */
    long numEdges();

    /** Heap bytes of the ids and adjacency (without features). */
    long structureHeapBytes();

    /** Heap bytes of everything held. */
    long heapBytes();

    /** Node features and labels of a homogeneous graph, or null (no node file, or a typed graph). */
    NodeFeatures features();
}
