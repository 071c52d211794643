package io.fanout.message;

/**
 * One batch's sampled subgraph as every sampler hands it to {@link MessageEncoder}: homogeneous (k-hop or PPR, plain
 * keys) or typed (keys per node and edge type). Parts are wire-typed tensors that view the sampler's buffers where
 * they can (nothing is copied to build a sample).
 */
public sealed interface Sample permits HomogeneousSample, TypedSample {
    /** True for a typed sample ({@code #IS_HETERO} = [1]). */
    boolean hetero();

    /** What the batch adds beyond its subgraph: labels, times, the graph version. */
    SampleMetadata metadata();
}
