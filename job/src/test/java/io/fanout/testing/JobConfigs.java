package io.fanout.testing;

import io.fanout.config.FanoutJobConfig;
import io.fanout.job.FanoutJob;

/** Job configurations from command-line arguments, parsed and validated as the job's main does. */
public final class JobConfigs {
    private JobConfigs() {
    }

    /** The validated configuration of these arguments (throws what the job would print). */
    public static FanoutJobConfig parse(String... args) {
        return FanoutJobConfig.from(FanoutJob.commandLine().parse(args).configuration);
    }
}
