package io.fanout.testing;

import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.test.junit5.MiniClusterExtension;

/** The embedded Flink cluster the job's MiniCluster tests share the shape of: one TaskManager, two slots. */
public final class MiniClusters {
    private MiniClusters() {
    }

    /** A MiniCluster of one TaskManager with two slots (parallelism 1 and 2), for a static @RegisterExtension field. */
    public static MiniClusterExtension oneTaskManagerTwoSlots() {
        return new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
                .setNumberTaskManagers(1)
                .setNumberSlotsPerTaskManager(2)
                .build());
    }
}
