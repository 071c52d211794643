package io.fanout.config;

/** What the sampler does when sampling a batch throws ({@code fanout.on-sampling-error}). */
public enum OnSamplingError {
    /** Emit a message carrying {@code #SAMPLING_ERROR} (the traceback) for the batch; the job goes on. */
    MESSAGE,
    /** Fail the job (Flink's restart strategy decides what happens next). */
    FAIL
}
