/**
 * k-hop sampling for a graph partitioned by node (no Flink): {@link io.fanout.sampling.partitioned.NeighborPicks}
 * is what the owner of one node's neighbour list draws for a request (in a disjoint tree's stream when asked;
 * {@link io.fanout.sampling.partitioned.WeightedPicks} in proportion to the weights,
 * {@link io.fanout.sampling.partitioned.TemporalPicks} among the edges up to its tree's seed time; per-edge values
 * kept per loaded group: {@link io.fanout.sampling.partitioned.GroupValues}; with each pick's edge data, for
 * {@code --with-edge}: {@link io.fanout.sampling.partitioned.EdgeListNode}, gathered per batch in edge order by
 * {@link io.fanout.sampling.partitioned.SampledEdgeData}),
 * {@link io.fanout.sampling.partitioned.BatchAssembly} one batch's subgraph growing hop by hop from those answers
 * (de-duplicated, or one tree per seed over {@link io.fanout.sampling.partitioned.TreeLocalIds}),
 * {@link io.fanout.sampling.partitioned.InducedEdges} its induced
 * edges from each node's list kept to the batch, {@link io.fanout.sampling.partitioned.NeighborBuckets} where a
 * node's list positions live when it is stored in fixed-size buckets, {@link
 * io.fanout.sampling.partitioned.HeteroBatchAssembly} a typed batch's subgraph (per node type and edge type,
 * disjoint or not) from the answers of each (edge type, node).
 * Together they give exactly the messages of {@link io.fanout.sampling.KHopSampler} (and {@link
 * io.fanout.sampling.hetero.HeteroKHopSampler}, the disjoint samplers and the subgraph inducer) over the whole graph,
 * whatever the order the answers arrive in: the building blocks of the keyed-state store's per-hop exchange.
 */
package io.fanout.sampling.partitioned;
