package io.fanout.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.jar.JarFile;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The standalone distribution the build assembles (target/flink-2.3.0): Flink's runtime in lib/, the
 * Prometheus reporter as a plugin, the conf/ template, and none of Fanout's code (user code comes only
 * from the submitted job jar, as on any Flink cluster).
 */
class DistributionTest {
    private static final Path DIST = Path.of(System.getProperty("flink.dist.dir"));
    private static final String V = System.getProperty("flink.version");

    private static List<Path> jars(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(p -> p.toString().endsWith(".jar")).sorted().toList();
        }
    }

    @Test
    void libHoldsFlinkAndTheLog4jBindingButNoFanoutCode() throws IOException {
        List<String> names = jars(DIST.resolve("lib")).stream().map(p -> p.getFileName().toString()).toList();
        assertThat(names).contains("flink-runtime-" + V + ".jar", "flink-streaming-java-" + V + ".jar",
                "flink-clients-" + V + ".jar", "flink-connector-files-" + V + ".jar",
                "flink-statebackend-rocksdb-" + V + ".jar", "flink-rpc-akka-loader-" + V + ".jar");
        // slf4j 1.7 in Flink 2.3: the log4j-slf4j-impl binding; the slf4j2 one would silently log nothing.
        assertThat(names).anyMatch(n -> n.startsWith("log4j-slf4j-impl-"))
                .noneMatch(n -> n.startsWith("log4j-slf4j2-impl-"))
                .noneMatch(n -> n.startsWith("fanout-"))
                .noneMatch(n -> n.startsWith("flink-metrics-prometheus"));
        for (Path jar : jars(DIST.resolve("lib"))) {
            try (JarFile f = new JarFile(jar.toFile())) {
                assertThat(f.stream().map(e -> e.getName()).filter(n -> n.startsWith("io/fanout/")).findAny())
                        .as("Fanout classes in %s", jar).isEmpty();
            }
        }
    }

    @Test
    void prometheusReporterIsAPluginWithTheConfiguredFactory() throws IOException {
        List<Path> plugin = jars(DIST.resolve("plugins/prometheus"));
        assertThat(plugin).hasSize(1);
        String factory = Files.readAllLines(DIST.resolve("conf/config.yaml")).stream()
                .filter(l -> l.startsWith("metrics.reporter.prom.factory.class:"))
                .map(l -> l.substring(l.indexOf(':') + 1).trim()).findFirst().orElseThrow();
        try (JarFile f = new JarFile(plugin.get(0).toFile())) {
            assertThat(f.getEntry(factory.replace('.', '/') + ".class")).isNotNull();
            String services = new String(f.getInputStream(
                    f.getEntry("META-INF/services/org.apache.flink.metrics.reporter.MetricReporterFactory")).readAllBytes());
            assertThat(services).contains(factory);
        }
    }

    @Test
    void confHoldsTheTemplateAndTheLogConfigs() {
        assertThat(DIST.resolve("conf/config.yaml")).content().contains("@CLUSTER_DIR@", "@REST_PORT@");
        assertThat(DIST.resolve("conf/log4j.properties")).content().contains("${sys:log.file}", "append = true");
        assertThat(DIST.resolve("conf/log4j-cli.properties")).exists();
        assertThat(DIST.resolve("log")).isDirectory();
    }
}
