package io.fanout.job;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URISyntaxException;
import java.net.URL;
import java.net.URLClassLoader;
import java.net.UnknownHostException;
import java.nio.file.FileSystemNotFoundException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.ServiceLoader;
import javax.annotation.Nullable;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.rpc.AddressResolution;
import org.apache.flink.runtime.rpc.RpcSystem;
import org.apache.flink.runtime.rpc.RpcSystemLoader;
import org.apache.flink.runtime.rpc.exceptions.RpcLoaderException;

/**
 * One RPC system per JVM for every embedded MiniCluster it starts: loaded by Flink's own loader the first time,
 * then lent to each later MiniCluster, whose {@code close()} leaves it open.
 *
 * <p>Flink's Pekko loader extracts its 24 MB jar and opens a new class loader for Pekko, Scala and Flink's RPC
 * classes on every {@code RpcSystem.load}, which each MiniCluster calls: a JVM that runs jobs one after another
 * (the tests, the benchmarks, an application calling {@code FanoutJob.run}) loads and JIT-compiles those classes
 * again for every job, about a second of compiler CPU beside the job's own threads. The system itself is a
 * factory of RPC services (each MiniCluster still starts its own), so lending it changes nothing else. Found
 * through {@code META-INF/services}, ahead of Flink's loader (a lower load priority); a Flink cluster's
 * JobManager and TaskManagers load theirs from Flink's lib/, where this class is not, and so keep Flink's.
 */
public final class SharedRpcSystemLoader implements RpcSystemLoader {
    private static RpcSystem shared;

    @Override
    public int getLoadPriority() {
        return -1; // Flink's Pekko loader is 0
    }

    @Override
    public RpcSystem loadRpcSystem(Configuration config) {
        return new Lent(sharedSystem(config));
    }

    /** The JVM's RPC system, loaded on first use by the next loader in Flink's order; never closed. */
    static synchronized RpcSystem sharedSystem(Configuration config) {
        if (shared == null) {
            List<RpcSystemLoader> others = new ArrayList<>();
            for (RpcSystemLoader loader : ServiceLoader.load(RpcSystemLoader.class)) {
                if (!(loader instanceof SharedRpcSystemLoader)) {
                    others.add(loader);
                }
            }
            others.sort(Comparator.comparingInt(RpcSystemLoader::getLoadPriority));
            if (others.isEmpty()) {
                throw new RpcLoaderException("no RPC system besides " + SharedRpcSystemLoader.class.getName()
                        + " on the class path (flink-rpc-akka-loader)");
            }
            RpcSystem system = others.get(0).loadRpcSystem(config);
            Path jar = extractedJar(system, config);
            if (jar != null) {
                // Deleted at exit, as a MiniCluster's close would have, but the class loader stays open: Pekko's
                // own shutdown hooks still load classes from it (an open jar reads on after its file is deleted).
                Runtime.getRuntime().addShutdownHook(new Thread(() -> deleteQuietly(jar), "fanout-rpc-jar-delete"));
            }
            shared = system;
        }
        return shared;
    }

    /** The jar Flink's loader extracted for {@code system}'s class loader, or null if it has none of its own. */
    @Nullable
    static Path extractedJar(RpcSystem system, Configuration config) {
        // A builder is a plain object of the system's own class loader (no service starts).
        ClassLoader loader = system.localServiceBuilder(config).getClass().getClassLoader();
        if (!(loader instanceof URLClassLoader) || loader == RpcSystem.class.getClassLoader()) {
            return null;
        }
        for (URL url : ((URLClassLoader) loader).getURLs()) {
            Path path;
            try {
                path = Path.of(url.toURI());
            } catch (URISyntaxException | IllegalArgumentException | FileSystemNotFoundException e) {
                continue; // not a local file
            }
            String name = path.getFileName() == null ? "" : path.getFileName().toString();
            if (name.startsWith("flink-rpc") && name.endsWith(".jar")) {
                return path;
            }
        }
        return null;
    }

    private static void deleteQuietly(Path jar) {
        try {
            Files.deleteIfExists(jar);
        } catch (IOException | RuntimeException e) {
            // At exit, with nothing to tell: the file stays in the temp directory, as after a killed JVM.
        }
    }

    /** The shared system as one MiniCluster sees it: everything but {@code close()} goes to it. */
    private static final class Lent implements RpcSystem {
        private final RpcSystem system;

        Lent(RpcSystem system) {
            this.system = system;
        }

        @Override
        public RpcServiceBuilder localServiceBuilder(Configuration configuration) {
            return system.localServiceBuilder(configuration);
        }

        @Override
        public RpcServiceBuilder remoteServiceBuilder(Configuration configuration, @Nullable String externalAddress,
                String externalPortRange) {
            return system.remoteServiceBuilder(configuration, externalAddress, externalPortRange);
        }

        @Override
        public String getRpcUrl(String hostname, int port, String endpointName, AddressResolution addressResolution,
                Configuration config) throws UnknownHostException {
            return system.getRpcUrl(hostname, port, endpointName, addressResolution, config);
        }

        @Override
        public InetSocketAddress getInetSocketAddressFromRpcUrl(String url) throws Exception {
            return system.getInetSocketAddressFromRpcUrl(url);
        }

        @Override
        public long getMaximumMessageSizeInBytes(Configuration config) {
            return system.getMaximumMessageSizeInBytes(config);
        }

        @Override
        public void close() {
            // Lent: the shared system stays open for the JVM's next MiniCluster.
        }
    }
}
