package io.fanout.deploy;

import java.io.File;
import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.Enumeration;
import java.util.HashMap;
import java.util.Map;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.FallbackKey;
import org.apache.flink.configuration.MetricOptions;

/**
 * Every configuration key Flink 2.3 knows, found by reflection: the static {@link ConfigOption} fields
 * of the {@code org.apache.flink..*Options} classes on the test class path (core, runtime, streaming,
 * RocksDB, clients, the Prometheus reporter), with their deprecated and fallback keys.
 */
final class FlinkConfigKeys {
    private final Map<String, ConfigOption<?>> options = new HashMap<>();
    /** Reporter-scoped keys ({@code metrics.reporter.<name>.<key>}), e.g. factory.class, interval. */
    private final Map<String, ConfigOption<?>> reporterOptions = new HashMap<>();

    FlinkConfigKeys() throws IOException {
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            if (entry.endsWith(".jar") && new File(entry).getName().startsWith("flink-")) {
                scanJar(new File(entry));
            }
        }
        for (Field f : MetricOptions.class.getFields()) {
            ConfigOption<?> option = optionIn(f);
            if (option != null && !option.key().startsWith("metrics.")) {
                reporterOptions.put(option.key(), option);
            }
        }
        if (options.size() < 500) {
            throw new IllegalStateException("found only " + options.size() + " Flink options; is Flink on the class path?");
        }
    }

    private void scanJar(File jar) throws IOException {
        try (JarFile file = new JarFile(jar)) {
            Enumeration<JarEntry> entries = file.entries();
            while (entries.hasMoreElements()) {
                String name = entries.nextElement().getName();
                if (name.startsWith("org/apache/flink/") && name.endsWith("Options.class") && !name.contains("$")
                        && !name.contains("/shaded/")) {
                    scanClass(name.substring(0, name.length() - ".class".length()).replace('/', '.'));
                }
            }
        }
    }

    private void scanClass(String className) {
        Class<?> c;
        try {
            c = Class.forName(className, true, getClass().getClassLoader());
        } catch (Throwable e) {
            return; // an Options class whose dependencies are not on the test class path
        }
        for (Field f : c.getDeclaredFields()) {
            ConfigOption<?> option = optionIn(f);
            if (option != null) {
                options.put(option.key(), option);
                for (FallbackKey k : option.fallbackKeys()) {
                    options.putIfAbsent(k.getKey(), option);
                }
            }
        }
    }

    private static ConfigOption<?> optionIn(Field f) {
        if (!Modifier.isStatic(f.getModifiers()) || !ConfigOption.class.isAssignableFrom(f.getType())) {
            return null;
        }
        try {
            f.setAccessible(true);
            return (ConfigOption<?>) f.get(null);
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
    }

    /**
     * Null if key=value is a valid Flink 2.3 setting, else why not: an unknown key, or a value the
     * option cannot parse. Reporter keys are checked against the reporter-scoped options and the
     * configured factory's own arguments (its static ARG_* names).
     */
    String problem(String key, String value, Map<String, String> all) {
        if (key.startsWith("metrics.reporter.")) {
            String[] parts = key.split("\\.", 4);
            if (parts.length < 4) {
                return "reporter key without a reporter name: " + key;
            }
            String suffix = parts[3];
            ConfigOption<?> scoped = reporterOptions.get(suffix);
            if (scoped != null) {
                return parse(scoped, value, key);
            }
            String factory = all.get("metrics.reporter." + parts[2] + ".factory.class");
            return factoryArguments(factory).contains(suffix) ? null
                    : "unknown key " + key + " (not a reporter option nor an argument of " + factory + ")";
        }
        ConfigOption<?> option = options.get(key);
        if (option == null) {
            return "unknown key " + key + " (no ConfigOption of Flink 2.3 has it)";
        }
        return parse(option, value, key);
    }

    private static String parse(ConfigOption<?> option, String value, String key) {
        Configuration conf = new Configuration();
        conf.setString(option.key(), value);
        try {
            conf.get(option);
            return null;
        } catch (RuntimeException e) {
            return "value '" + value + "' of " + key + " does not parse: " + e.getMessage();
        }
    }

    private static java.util.Set<String> factoryArguments(String factoryClass) {
        java.util.Set<String> args = new java.util.HashSet<>();
        if (factoryClass == null) {
            return args;
        }
        try {
            for (Field f : Class.forName(factoryClass).getDeclaredFields()) {
                if (Modifier.isStatic(f.getModifiers()) && f.getType() == String.class && f.getName().startsWith("ARG_")) {
                    f.setAccessible(true);
                    args.add((String) f.get(null));
                }
            }
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("reporter factory " + factoryClass + " is not on the class path", e);
        }
        return args;
    }
}
