/**
 * k-hop sampling for a graph partitioned by node (no Flink): {@link io.fanout.sampling.partitioned.NeighborPicks}
 * is what the owner of one node's neighbour list draws for a request, {@link
 * io.fanout.sampling.partitioned.BatchAssembly} is one batch's subgraph growing hop by hop from those answers,
 * {@link io.fanout.sampling.partitioned.NeighborBuckets} where a node's list positions live when it is stored in
 * fixed-size buckets, {@link io.fanout.sampling.partitioned.HeteroBatchAssembly} a typed batch's subgraph (per node
 * type and edge type) from the answers of each (edge type, node).
 * Together they give exactly the messages of {@link io.fanout.sampling.KHopSampler} (and {@link io.fanout.sampling.hetero.HeteroKHopSampler}) over the whole graph, whatever
 * the order the answers arrive in: the building blocks of the keyed-state store's per-hop exchange.
 */
package io.fanout.sampling.partitioned;
