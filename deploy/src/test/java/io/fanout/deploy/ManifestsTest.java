package io.fanout.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import io.fanout.config.CommandLine;
import io.fanout.config.FanoutOptions;
import io.fanout.job.FanoutJob;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.jar.JarFile;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

/**
 * The deployment manifests agree with the build: image tag = flink.version, jar path and main class =
 * the job jar's, ports = the configuration's, and every Flink setting a key Flink 2.3 knows with a
 * value it parses.
 */
class ManifestsTest {
    private static final Path DEPLOY = Path.of(System.getProperty("fanout.deploy.dir", "."));
    private static final String FLINK_VERSION = System.getProperty("flink.version");
    private static final String IMAGE_JAR = "/opt/flink/usrlib/fanout-job.jar";

    private static FlinkConfigKeys keys;
    private static String mainClass;

    @BeforeAll
    static void load() throws IOException {
        keys = new FlinkConfigKeys();
        try (JarFile jar = new JarFile(System.getProperty("fanout.job.jar"))) {
            mainClass = jar.getManifest().getMainAttributes().getValue("Main-Class");
        }
        assertThat(mainClass).isEqualTo(FanoutJob.class.getName());
    }

    private static String read(String relative) throws IOException {
        return Files.readString(DEPLOY.resolve(relative));
    }

    private static List<Map<String, Object>> yamlDocuments(String relative) throws IOException {
        List<Map<String, Object>> docs = new ArrayList<>();
        for (Object doc : new Yaml().loadAll(read(relative))) {
            docs.add(map(doc));
        }
        return docs;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(Object o) {
        assertThat(o).isInstanceOf(Map.class);
        return (Map<String, Object>) o;
    }

    @SuppressWarnings("unchecked")
    private static List<Object> list(Object o) {
        assertThat(o).isInstanceOf(List.class);
        return (List<Object>) o;
    }

    private static Object at(Map<String, Object> root, String... path) {
        Object o = root;
        for (String p : path) {
            o = map(o).get(p);
            assertThat(o).as("%s in %s", p, String.join(".", path)).isNotNull();
        }
        return o;
    }

    /** key -> value as Flink reads them (every scalar as a string). */
    private static Map<String, String> flat(Map<String, Object> yaml) {
        Map<String, String> out = new LinkedHashMap<>();
        yaml.forEach((k, v) -> out.put(k, String.valueOf(v)));
        return out;
    }

    private static void assertValidFlinkSettings(String where, Map<String, String> settings) {
        List<String> problems = new ArrayList<>();
        settings.forEach((k, v) -> {
            String problem = keys.problem(k, v, settings);
            if (problem != null) {
                problems.add(problem);
            }
        });
        assertThat(problems).as("Flink settings in %s", where).isEmpty();
    }

    // ---------------------------------------------------------------- the local cluster's config

    @Test
    void clusterConfigTemplateHasOnlyFlinkKeysWithParsableValues() throws IOException {
        String rendered = read("conf/flink/config.yaml").replace("@CLUSTER_DIR@", "/tmp/fanout-cluster")
                .replace("@REST_PORT@", "8081").replace("@RPC_PORT@", "6123").replace("@PROM_PORTS@", "9250-9260");
        assertThat(rendered).doesNotContainPattern("@[A-Z_]+@");
        Map<String, String> conf = flat(map(new Yaml().load(rendered)));
        assertValidFlinkSettings("conf/flink/config.yaml", conf);
        assertThat(conf).containsEntry("state.backend.type", "rocksdb")
                .containsEntry("execution.checkpointing.incremental", "true")
                .containsEntry("execution.checkpointing.externalized-checkpoint-retention", "RETAIN_ON_CANCELLATION");
        // Loopback only.
        for (String k : List.of("jobmanager.rpc.address", "jobmanager.bind-host", "taskmanager.host",
                "taskmanager.bind-host", "rest.address", "rest.bind-address")) {
            assertThat(conf).containsEntry(k, "127.0.0.1");
        }
    }

    // ---------------------------------------------------------------- Dockerfile

    @Test
    void dockerfileBuildsOnTheFlinkImageOfTheBuildAndAddsTheJobJar() throws IOException {
        String dockerfile = read("Dockerfile");
        Matcher from = Pattern.compile("(?m)^FROM (\\S+)").matcher(dockerfile);
        assertThat(from.find()).isTrue();
        assertThat(from.group(1)).isEqualTo("flink:" + FLINK_VERSION + "-java17");
        Matcher copy = Pattern.compile("(?m)^COPY (?:--\\S+ )*(\\S+) (\\S+)$").matcher(dockerfile);
        assertThat(copy.find()).isTrue();
        assertThat(copy.group(1)).isEqualTo("job/target/fanout-job.jar");
        assertThat(DEPLOY.resolve("..").resolve(copy.group(1))).exists();
        assertThat(copy.group(2)).isEqualTo(IMAGE_JAR);
    }

    // ---------------------------------------------------------------- docker compose

    @Test
    void composeSessionClusterAgreesWithTheImageAndTheJob() throws IOException {
        Map<String, Object> compose = yamlDocuments("docker-compose.yml").get(0);
        Map<String, Object> services = map(compose.get("services"));
        assertThat(services).containsKeys("jobmanager", "taskmanager", "submit", "trainer");
        Map<String, Object> jm = map(services.get("jobmanager"));
        assertThat(map(jm.get("build"))).containsEntry("dockerfile", "deploy/Dockerfile");
        String image = (String) jm.get("image");
        for (String s : List.of("taskmanager", "submit")) {
            assertThat(map(services.get(s))).containsEntry("image", image);
        }
        assertThat(list(jm.get("ports"))).contains("8081:8081");

        Map<String, String> flink = flat(map(new Yaml().load(
                (String) map(map(services.get("taskmanager")).get("environment")).get("FLINK_PROPERTIES"))));
        assertValidFlinkSettings("docker-compose.yml FLINK_PROPERTIES", flink);

        String submit = String.join(" ", list(map(services.get("submit")).get("command")).stream()
                .map(String::valueOf).toList());
        assertThat(submit).contains("flink run").contains(IMAGE_JAR);
        List<String> jobArgs = List.of(submit.substring(submit.indexOf(IMAGE_JAR) + IMAGE_JAR.length()).trim()
                .split("\\s+"));
        Map<String, String> job = parseJobArgs(jobArgs);
        // Every channel endpoint port (port + subtask index) and the metrics port are exposed.
        int slots = Integer.parseInt(flink.get("taskmanager.numberOfTaskSlots"));
        List<Object> exposed = list(map(services.get("taskmanager")).get("expose"));
        for (int i = 0; i < slots; i++) {
            assertThat(exposed).contains(String.valueOf(Integer.parseInt(job.get("fanout.channel.port")) + i));
        }
        assertThat(exposed).contains(flink.get("metrics.reporter.prom.port"));
        assertThat(job).containsEntry("fanout.channel.bind-host", "0.0.0.0");
        assertThat(String.valueOf(map(services.get("trainer")).get("command"))).contains(job.get("fanout.channel.registry"));
    }

    /** The job's own command line accepts the arguments; returns them as option key -> value. */
    private static Map<String, String> parseJobArgs(List<String> args) {
        CommandLine.Parsed parsed = FanoutJob.commandLine().parse(args.toArray(new String[0]));
        Map<String, String> out = parsed.configuration.toMap();
        assertThat(out).containsKey(FanoutOptions.GRAPH.key());
        return out;
    }

    // ---------------------------------------------------------------- Kubernetes

    @Test
    void flinkDeploymentRunsTheJobJarOfTheImageInApplicationMode() throws IOException {
        Map<String, Object> fd = yamlDocuments("k8s/flinkdeployment.yaml").get(0);
        assertThat(fd).containsEntry("apiVersion", "flink.apache.org/v1beta1").containsEntry("kind", "FlinkDeployment");
        Map<String, Object> spec = map(fd.get("spec"));
        assertFlinkSpec(spec);
        Map<String, Object> job = map(spec.get("job"));
        assertThat(job).containsEntry("jarURI", "local://" + IMAGE_JAR).containsEntry("entryClass", mainClass)
                .containsEntry("upgradeMode", "last-state");
        List<String> args = list(job.get("args")).stream().map(String::valueOf).toList();
        Map<String, String> options = parseJobArgs(args);
        assertThat(options).containsEntry("fanout.serve", "true");

        // Channel ports: endpoint i listens on channel.port + i; one per slot of a TaskManager.
        Map<String, String> flink = flinkConfiguration(spec);
        int slots = Integer.parseInt(flink.get("taskmanager.numberOfTaskSlots"));
        int port = Integer.parseInt(options.get("fanout.channel.port"));
        List<Object> tmContainers = list(at(map(map(spec.get("taskManager")).get("podTemplate")), "spec", "containers"));
        List<Integer> channelPorts = new ArrayList<>();
        for (Object p : list(map(tmContainers.get(0)).get("ports"))) {
            if (String.valueOf(map(p).get("name")).startsWith("channel-")) {
                channelPorts.add((Integer) map(p).get("containerPort"));
            }
        }
        List<Integer> expected = new ArrayList<>();
        for (int i = 0; i < slots; i++) {
            expected.add(port + i);
        }
        assertThat(channelPorts).containsExactlyElementsOf(expected);
        assertThat(options).containsEntry("fanout.channel.bind-host", "0.0.0.0");

        // Bound to every interface, so TLS only: both files from the mounted Secret, in every pod
        // (the JobManager checks them when the job starts, each TaskManager loads them).
        String cert = options.get("fanout.channel.tls.cert");
        String key = options.get("fanout.channel.tls.key");
        assertThat(cert).as("--channel-tls-cert").isNotNull();
        assertThat(key).as("--channel-tls-key").isNotNull();
        Map<String, Object> podSpec = map(at(map(spec.get("podTemplate")), "spec"));
        Map<String, Object> mount = list(map(list(podSpec.get("containers")).get(0)).get("volumeMounts")).stream().map(m -> map(m))
                .filter(m -> cert.startsWith(m.get("mountPath") + "/") && key.startsWith(m.get("mountPath") + "/")).findFirst()
                .orElseThrow(() -> new AssertionError("no volume mounted where " + cert + " and " + key + " are"));
        Map<String, Object> volume = list(podSpec.get("volumes")).stream().map(v -> map(v))
                .filter(v -> v.get("name").equals(mount.get("name"))).findFirst().orElseThrow();
        assertThat(volume).containsKey("secret");
    }

    @Test
    void offlineCronJobSubmitsTheJobJarToTheSessionClusterWritingToAnObjectStore() throws IOException {
        List<Map<String, Object>> docs = yamlDocuments("k8s/cronjob-offline.yaml");
        Map<String, Object> session = docs.stream().filter(d -> "FlinkDeployment".equals(d.get("kind"))).findFirst()
                .orElseThrow();
        Map<String, Object> spec = map(session.get("spec"));
        assertThat(spec).doesNotContainKey("job");
        assertFlinkSpec(spec);

        Map<String, Object> cron = docs.stream().filter(d -> "CronJob".equals(d.get("kind"))).findFirst().orElseThrow();
        assertThat(cron).containsEntry("apiVersion", "batch/v1");
        Map<String, Object> container = map(list(at(map(cron.get("spec")), "jobTemplate", "spec", "template", "spec",
                "containers")).get(0));
        assertThat(container).containsEntry("image", spec.get("image"));
        String command = String.join(" ", list(container.get("args")).stream().map(String::valueOf).toList());
        String rest = at(session, "metadata", "name") + "-rest:8081";
        assertThat(command).contains("flink run -m " + rest).contains("-c " + mainClass + " " + IMAGE_JAR);
        // Shell expansions stand in for the date; the rest is the job's own command line.
        String args = command.substring(command.indexOf(IMAGE_JAR) + IMAGE_JAR.length())
                .replaceAll("\"\\$\\(date \\+%Y%m%d\\)\"", "20260101").replaceAll("\\$\\(date \\+%Y-%m-%d\\)", "2026-01-01")
                .replace("\"", "");
        Map<String, String> options = parseJobArgs(List.of(args.trim().split("\\s+")));
        assertThat(options.get("fanout.output")).startsWith("s3://");
        assertThat(options).doesNotContainKey("fanout.serve");
        assertPluginVersion(container);
    }

    private static Map<String, String> flinkConfiguration(Map<String, Object> spec) {
        return flat(map(spec.get("flinkConfiguration")));
    }

    /** Image, Flink version, settings, Prometheus port/annotations and plugins of a FlinkDeployment spec. */
    private static void assertFlinkSpec(Map<String, Object> spec) throws IOException {
        assertThat(spec.get("image")).isEqualTo(composeImage());
        String[] v = FLINK_VERSION.split("\\.");
        assertThat(spec).containsEntry("flinkVersion", "v" + v[0] + "_" + v[1]);
        Map<String, String> flink = flinkConfiguration(spec);
        assertValidFlinkSettings("flinkConfiguration", flink);
        assertThat(flink).containsEntry("state.backend.type", "rocksdb")
                .containsEntry("execution.checkpointing.incremental", "true");
        assertThat(flink.get("execution.checkpointing.dir")).startsWith("s3://");
        assertThat(flink).as("heap for the graph store, little managed memory for RocksDB (as config.yaml)")
                .containsEntry("taskmanager.memory.managed.fraction", managedFraction());

        String promPort = flink.get("metrics.reporter.prom.port");
        Map<String, Object> pod = map(spec.get("podTemplate"));
        assertThat(map(at(pod, "metadata", "annotations"))).containsEntry("prometheus.io/scrape", "true")
                .containsEntry("prometheus.io/port", promPort);
        Map<String, Object> main = map(list(at(pod, "spec", "containers")).get(0));
        assertThat(main).containsEntry("name", "flink-main-container");
        assertThat(list(main.get("ports"))).anySatisfy(p -> assertThat(map(p))
                .containsEntry("name", "metrics").containsEntry("containerPort", Integer.parseInt(promPort)));
        assertPluginVersion(main);
    }

    /** The managed-memory fraction the local cluster's config.yaml sets (the manifests must agree). */
    private static String managedFraction() throws IOException {
        // A template with @...@ placeholders: read the one line rather than parse the YAML.
        java.util.regex.Matcher line = java.util.regex.Pattern.compile("(?m)^taskmanager\\.memory\\.managed\\.fraction:\\s*(\\S+)")
                .matcher(read("conf/flink/config.yaml"));
        assertThat(line.find()).as("config.yaml sizes managed memory for the memory store").isTrue();
        String fraction = line.group(1);
        assertThat(Double.parseDouble(String.valueOf(fraction))).isLessThan(0.4); // below Flink's default
        return String.valueOf(fraction);
    }

    private static void assertPluginVersion(Map<String, Object> container) {
        for (Object e : list(container.get("env"))) {
            if ("ENABLE_BUILT_IN_PLUGINS".equals(map(e).get("name"))) {
                assertThat(String.valueOf(map(e).get("value"))).endsWith("-" + FLINK_VERSION + ".jar");
            }
        }
    }

    private static String composeImage() throws IOException {
        return (String) map(map(yamlDocuments("docker-compose.yml").get(0).get("services")).get("jobmanager")).get("image");
    }

    @Test
    void unknownKeysAndBadValuesAreCaught() {
        // The checker itself: it must fail on what it is there to catch.
        Map<String, String> bad = Map.of("state.backend.incremental.typo", "true",
                "execution.checkpointing.interval", "ten seconds",
                "metrics.reporter.prom.factory.class", "org.apache.flink.metrics.prometheus.PrometheusReporterFactory",
                "metrics.reporter.prom.prot", "9249");
        assertThat(keys.problem("state.backend.incremental.typo", "true", bad)).contains("unknown key");
        assertThat(keys.problem("execution.checkpointing.interval", "ten seconds", bad)).contains("does not parse");
        assertThat(keys.problem("metrics.reporter.prom.prot", "9249", bad)).contains("unknown key");
        assertThat(keys.problem("metrics.reporter.prom.port", "9249", bad)).isNull();
        assertThat(keys.problem("taskmanager.numberOfTaskSlots", "2", bad)).isNull();
    }
}
