/**
 * The in-memory graph store (no Flink): a graph's node ids, adjacency and node features loaded together from one
 * {@link io.fanout.store.GraphSpec} ({@link io.fanout.store.GraphStore}), and the per-JVM cache that lets every
 * sampler subtask of a TaskManager share one copy ({@link io.fanout.store.SharedGraphs}).
 */
package io.fanout.store;
