/**
 * Graph storage, the bottom layer of Fanout (no Flink here): the edge-file loader ({@link io.fanout.graph.GraphLoader}),
 * the int64 node ids and their dense indices ({@link io.fanout.graph.NodeIdMap}) and the immutable CSR store every
 * sampler reads ({@link io.fanout.graph.CsrGraph}).
 */
package io.fanout.graph;
