package io.fanout.testing;

import io.fanout.config.FanoutJobConfig;
import io.fanout.job.FanoutJob;

/** Job configurations from command-line arguments, parsed and validated as the job's main does. */
public final class JobConfigs {
    private JobConfigs() {
    }

    /**
     * {@code args} for a run on {@code store}: the memory store refuses the partitioned store's own PPR fetch-round
     * cap (it pushes to convergence), so a parity test's shared options drop it there.
     */
    public static String[] forStore(String store, String... args) {
        java.util.List<String> out = new java.util.ArrayList<>(java.util.List.of(args));
        int at = out.indexOf("--ppr-max-fetch-iterations");
        if (store.equals("memory") && at >= 0) {
            out.subList(at, Math.min(at + 2, out.size())).clear();
        }
        return out.toArray(new String[0]);
    }

    /** The validated configuration of these arguments (throws what the job would print). */
    public static FanoutJobConfig parse(String... args) {
        return FanoutJobConfig.from(FanoutJob.commandLine().parse(args).configuration);
    }
}
