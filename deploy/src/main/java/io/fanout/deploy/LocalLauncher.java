package io.fanout.deploy;

import io.fanout.config.ConfigException;
import io.fanout.job.FanoutJob;
import java.io.IOException;

/**
 * Runs the Fanout job in an embedded Flink MiniCluster (deploy/bin/fanout-local), turning bad input
 * into a one-line error and exit code 2 instead of a stack trace.
 */
public final class LocalLauncher {
    private LocalLauncher() {}

    public static void main(String[] args) throws Exception {
        try {
            FanoutJob.main(args);
        } catch (ConfigException | IOException e) {
            System.err.println("fanout-local: error: " + e.getMessage());
            System.exit(2);
        } catch (Exception e) {
            Throwable input = badInputCause(e);
            if (input == null) {
                throw e;
            }
            System.err.println("fanout-local: error: " + input.getMessage());
            System.exit(2);
        }
        // The MiniCluster leaves non-daemon threads behind; the job is done, so end the process.
        System.exit(0);
    }

    /** A configuration or input-file error somewhere in the cause chain of a job failure, if any. */
    private static Throwable badInputCause(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof ConfigException || t instanceof IOException) {
                return t;
            }
        }
        return null;
    }
}
