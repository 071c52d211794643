/**
 * The partitioned graph store ({@code --store partitioned}) as Flink operators: edge files streamed into keyed
 * state by node ({@link io.fanout.flink.partitioned.EdgeFileFunction}), one keyed neighbour lookup per hop over
 * that state ({@link io.fanout.flink.partitioned.NeighborLookupOperator}) and per-batch assembly stages keyed by
 * batch ({@link io.fanout.flink.partitioned.HopStageFunction}): TF-GNN's and GiGL's per-hop join, unrolled for
 * the configured hops. A node's list is stored in fixed-size buckets. With a node file, its rows are streamed into
 * keyed state by node too ({@link io.fanout.flink.partitioned.NodeFileFunction},
 * {@link io.fanout.flink.partitioned.NodeDataLookupOperator}) and gathered per batch after the last hop
 * ({@link io.fanout.flink.partitioned.NodeDataStageFunction}). The algorithms are
 * {@link io.fanout.sampling.partitioned}'s. PPR ({@link io.fanout.flink.partitioned.PartitionedPpr}) is GiGL's
 * distributed PPR unrolled the same way: fetch rounds instead of hops, the push ({@link io.fanout.sampling.ppr})
 * in a stage keyed by batch.
 */
package io.fanout.flink.partitioned;
