/**
 * The partitioned graph store ({@code --store partitioned}) as Flink operators: edge files streamed into keyed
 * state by node ({@link io.fanout.flink.partitioned.EdgeFileFunction}), one keyed neighbour lookup per hop over
 * that state ({@link io.fanout.flink.partitioned.NeighborLookupOperator}) and per-batch assembly stages keyed by
 * batch ({@link io.fanout.flink.partitioned.HopStageFunction}): TF-GNN's and GiGL's per-hop join, unrolled for
 * the configured hops. A node's list is stored in fixed-size buckets. With a node file, its rows are streamed into
 * keyed state by node too ({@link io.fanout.flink.partitioned.NodeFileFunction},
 * {@link io.fanout.flink.partitioned.KeyedLookups#nodeData}) and gathered per batch after the last hop
 * ({@link io.fanout.flink.partitioned.NodeDataStageFunction}). The algorithms are
 * {@link io.fanout.sampling.partitioned}'s. PPR ({@link io.fanout.flink.partitioned.PartitionedPpr}) is GiGL's
 * distributed PPR unrolled the same way: fetch rounds instead of hops, the push ({@link io.fanout.sampling.ppr})
 * in a stage keyed by batch. A typed graph's k-hop ({@link io.fanout.flink.partitioned.PartitionedTypedKHop}) loads
 * each edge type's file as a plain graph into one lookup per (edge type, hop), keyed by node id under the memory
 * store's hop seed of that type and hop, so every lookup is a plain one and byte identity needs no new state layout;
 * its stages keyed by batch apply the edge types in name order. Link batches with negatives first draw the candidates
 * the memory store would try and ask one more whole-list lookup which are edges
 * ({@link io.fanout.flink.partitioned.NegativeProbeFunction},
 * {@link io.fanout.flink.partitioned.NegativeStageFunction}).
 */
package io.fanout.flink.partitioned;
