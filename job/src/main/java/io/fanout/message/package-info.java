/**
 * The message layer (no Flink): the output type every sampler path of both stores ends in ({@link
 * io.fanout.message.Sample}: {@link io.fanout.message.HomogeneousSample} or {@link io.fanout.message.TypedSample}),
 * its one encoder into GLT/GiGL-keyed messages ({@link io.fanout.message.MessageEncoder}) and the decoder back
 * ({@link io.fanout.message.MessageDecoder}). The keys are written in one place, so the memory store's and the
 * partitioned store's messages are identical by construction.
 */
package io.fanout.message;
