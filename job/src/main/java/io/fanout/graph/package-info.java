/**
 * Graph storage, the bottom layer of Fanout (no Flink here): the edge-file loader ({@link io.fanout.graph.GraphLoader}),
 * the immutable CSR store every sampler reads ({@link io.fanout.graph.CsrGraph}) and the per-JVM cache that lets all
 * sampler subtasks of a TaskManager share one copy ({@link io.fanout.graph.SharedGraphs}).
 */
package io.fanout.graph;
