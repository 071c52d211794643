/**
 * The node feature store (no Flink): node files ({@code nodes.tsv}: id, label, features) read into compact
 * per-node rows in the configured dtype, gathered into messages by node index ({@link io.fanout.features.NodeFeatures}).
 */
package io.fanout.features;
