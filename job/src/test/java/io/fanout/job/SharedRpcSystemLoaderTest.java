package io.fanout.job;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.rpc.RpcService;
import org.apache.flink.runtime.rpc.RpcSystem;
import org.junit.jupiter.api.Test;

/** Flink's own {@code RpcSystem.load}, as every MiniCluster calls it, lends the JVM's one RPC system. */
class SharedRpcSystemLoaderTest {

    @Test
    void everyLoadLendsOneSystemThatALentCloseLeavesOpen() throws Exception {
        Configuration conf = new Configuration();
        RpcSystem first = RpcSystem.load(conf);
        RpcSystem second = RpcSystem.load(conf);
        RpcService a = first.localServiceBuilder(conf).createAndStart();
        RpcService b = second.localServiceBuilder(conf).createAndStart();
        try {
            // Flink's loader alone opens a class loader per load: the services' classes would differ.
            assertThat(b.getClass()).isSameAs(a.getClass());
            assertThat(a.getClass().getClassLoader()).isNotSameAs(RpcSystem.class.getClassLoader());
        } finally {
            a.closeAsync().get();
            b.closeAsync().get();
        }
        // A MiniCluster closes its system when it stops: the next one must still get a working system.
        first.close();
        second.close();
        RpcService c = RpcSystem.load(conf).localServiceBuilder(conf).createAndStart();
        try {
            assertThat(c.getClass()).isSameAs(a.getClass());
            // Flink's extracted jar stays until the JVM exits (a shutdown hook deletes it).
            assertThat(SharedRpcSystemLoader.extractedJar(SharedRpcSystemLoader.sharedSystem(conf), conf))
                    .isNotNull().exists();
        } finally {
            c.closeAsync().get();
        }
    }
}
