/**
 * k-hop sampling for a graph partitioned by node (no Flink): {@link io.fanout.sampling.partitioned.NeighborPicks}
 * is what the owner of one node's neighbour list draws for a request, {@link
 * io.fanout.sampling.partitioned.BatchAssembly} is one batch's subgraph growing hop by hop from those answers,
 * {@link io.fanout.sampling.partitioned.NeighborBuckets} where a node's list positions live when it is stored in
 * fixed-size buckets.
 * Together they give exactly the messages of {@link io.fanout.sampling.KHopSampler} over the whole graph, whatever
 * the order the answers arrive in: the building blocks of the keyed-state store's per-hop exchange.
 */
package io.fanout.sampling.partitioned;
