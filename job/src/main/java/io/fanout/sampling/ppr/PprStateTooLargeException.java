package io.fanout.sampling.ppr;

/**
 * One batch's PPR push state would not fit in one value (a Java array, a RocksDB value). A fact of the options and
 * the graph, not of the run: retrying cannot help, so callers fail without restarts.
 */
public final class PprStateTooLargeException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    PprStateTooLargeException(String message) {
        super(message);
    }
}
