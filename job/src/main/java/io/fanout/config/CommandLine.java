package io.fanout.config;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.description.BlockElement;
import org.apache.flink.configuration.description.TextElement;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

/**
 * Turns {@code --name value} arguments, {@code --config FILE.yaml} files and {@code -D key=value}
 * Flink settings into one Flink {@link Configuration}.
 *
 * <p>A {@link ConfigOption} with key {@code fanout.x} is the flag {@code --x}; a few flags have short
 * aliases ({@code --registry} for {@code fanout.channel.registry}). A boolean flag given alone means
 * true. Later sources win: YAML files, then flags and {@code -D} settings in argument order.
 *
 * <p>A YAML or {@code -D} key is Fanout's when it starts with {@code fanout.}, has no dot (Flink's keys all do)
 * or starts with the first part of a dotted flag ({@code channel.}); such a key must name an option, as a flag
 * must, or it is refused with the nearest valid name. Every other key is a Flink setting and passes through.
 */
public final class CommandLine {
    private static final String PREFIX = "fanout.";

    private final Map<String, ConfigOption<?>> byFlag = new LinkedHashMap<>();
    private final List<ConfigOption<?>> options;

    /** The parsed arguments: the configuration and whether --help was asked for. */
    public static final class Parsed {
        public final Configuration configuration;
        public final boolean help;

        Parsed(Configuration configuration, boolean help) {
            this.configuration = configuration;
            this.help = help;
        }
    }

    /**
     * @param options every option the command accepts, in --help order
     * @param aliases extra flag names (without dashes) for some option keys
     */
    public CommandLine(List<ConfigOption<?>> options, Map<String, String> aliases) {
        this.options = List.copyOf(options);
        for (ConfigOption<?> option : options) {
            byFlag.put(flagOf(option), option);
        }
        aliases.forEach((alias, key) -> byFlag.put(alias, options.stream()
                .filter(o -> o.key().equals(key))
                .findFirst()
                .orElseThrow(() -> new IllegalArgumentException("alias for unknown key " + key))));
    }

    /** The flag (without dashes) of an option: its key without the {@code fanout.} prefix. */
    public static String flagOf(ConfigOption<?> option) {
        String key = option.key();
        return key.startsWith(PREFIX) ? key.substring(PREFIX.length()) : key;
    }

    public Parsed parse(String[] args) {
        Configuration conf = new Configuration();
        boolean help = false;
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            if (arg.equals("--help") || arg.equals("-h")) {
                help = true;
            } else if (arg.equals("-D")) {
                setRaw(conf, requireValue(args, i++, "-D"));
            } else if (arg.startsWith("-D")) {
                setRaw(conf, arg.substring(2));
            } else if (arg.equals("--config") || arg.startsWith("--config=")) {
                String file = arg.startsWith("--config=") ? arg.substring("--config=".length()) : requireValue(args, i++, "--config");
                loadYaml(Path.of(file), conf);
            } else if (arg.startsWith("--")) {
                String name = arg.substring(2);
                String value = null;
                int eq = name.indexOf('=');
                if (eq >= 0) {
                    value = name.substring(eq + 1);
                    name = name.substring(0, eq);
                }
                ConfigOption<?> option = byFlag.get(name);
                if (option == null) {
                    throw new ConfigException("Unknown option --" + name + " (did you mean --" + nearestFlag(name)
                            + "?). Run with --help to list the options.");
                }
                if (value == null) {
                    boolean isFlag = isBoolean(option) && (i + 1 >= args.length || !isBooleanLiteral(args[i + 1]));
                    value = isFlag ? "true" : requireValue(args, i++, arg);
                }
                conf.setString(option.key(), value);
            } else {
                throw new ConfigException("Unexpected argument '" + arg + "': options are given as --name value."
                        + " Run with --help to list the options.");
            }
        }
        return new Parsed(conf, help);
    }

    /** Reads a YAML file (nested maps or flat dotted keys) into conf; keys may omit the fanout. prefix. */
    public void loadYaml(Path file, Configuration conf) {
        String text;
        try {
            // Read before parsing: SnakeYAML would wrap a read failure (e.g. a directory) as a YAML error.
            text = Files.readString(file);
        } catch (IOException e) {
            throw new ConfigException("Invalid value '" + file + "' for option --config: " + ConfigException.reason(e), e);
        }
        Object root;
        try {
            root = new Yaml(new SafeConstructor(new LoaderOptions())).load(text);
        } catch (RuntimeException e) {
            throw new ConfigException("Configuration file " + file + " is not valid YAML: " + e.getMessage(), e);
        }
        if (root == null) {
            return;
        }
        if (!(root instanceof Map)) {
            throw new ConfigException("Configuration file " + file + " must hold a map of option keys to values");
        }
        Map<String, String> flat = new LinkedHashMap<>();
        flatten("", (Map<?, ?>) root, flat);
        flat.forEach((key, value) -> setKey(conf, key, value, "configuration file " + file));
    }

    /**
     * Sets a YAML or -D key: an option's key or flag as that option, a Flink key as given; an unknown Fanout key
     * fails here because Flink would ignore it silently (a misspelled {@code batchsize:} ran with the default).
     */
    private void setKey(Configuration conf, String key, String value, String source) {
        boolean prefixed = key.startsWith(PREFIX);
        String flag = prefixed ? key.substring(PREFIX.length()) : key;
        ConfigOption<?> option = byFlag.get(flag);
        if (option != null) {
            conf.setString(option.key(), value);
        } else if (prefixed || isFanoutFlagShaped(flag)) {
            String nearest = nearestFlag(flag);
            throw new ConfigException("Unknown key '" + key + "' in " + source + " (did you mean '"
                    + (prefixed ? byFlag.get(nearest).key() : nearest) + "'?). Run with --help to list the options.");
        } else {
            conf.setString(key, value);
        }
    }

    /** No dot (every Flink key has one), or the first part of a dotted flag such as {@code channel.}. */
    private boolean isFanoutFlagShaped(String key) {
        return !key.contains(".") || byFlag.keySet().stream()
                .anyMatch(f -> f.contains(".") && key.startsWith(f.substring(0, f.indexOf('.') + 1)));
    }

    /** The flag (or alias) with the smallest edit distance to name; ties go to the earlier option. */
    private String nearestFlag(String name) {
        String best = null;
        int bestDistance = Integer.MAX_VALUE;
        for (String flag : byFlag.keySet()) {
            int d = editDistance(name, flag);
            if (d < bestDistance) {
                best = flag;
                bestDistance = d;
            }
        }
        return best;
    }

    /** Levenshtein distance: insertions, deletions and substitutions of one character. */
    static int editDistance(String a, String b) {
        int[] previous = new int[b.length() + 1];
        int[] current = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            previous[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            current[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int substitute = previous[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
                current[j] = Math.min(substitute, Math.min(previous[j], current[j - 1]) + 1);
            }
            int[] swap = previous;
            previous = current;
            current = swap;
        }
        return previous[b.length()];
    }

    private void flatten(String prefix, Map<?, ?> map, Map<String, String> out) {
        for (Map.Entry<?, ?> e : map.entrySet()) {
            String key = prefix + e.getKey();
            Object v = e.getValue();
            if (v instanceof Map && key.startsWith(PREFIX) && byFlag.containsKey(key.substring(PREFIX.length()))) {
                // A mapping as an option's value (a typed graph's fanouts per edge type): 'k:v;k:v', lists as 'a,b'.
                // Only under the fanout. namespace: a top-level 'fanout:' map is that namespace, not --fanout.
                Map<String, String> entries = new LinkedHashMap<>();
                flatten("", (Map<?, ?>) v, entries);
                List<String> parts = new ArrayList<>();
                entries.forEach((k, value) -> parts.add(k + ":" + value));
                out.put(key, String.join(";", parts));
            } else if (v instanceof Map) {
                flatten(key + ".", (Map<?, ?>) v, out);
            } else if (v instanceof List) {
                List<String> parts = new ArrayList<>();
                for (Object o : (List<?>) v) {
                    parts.add(String.valueOf(o));
                }
                out.put(key, String.join(",", parts));
            } else {
                out.put(key, String.valueOf(v));
            }
        }
    }

    private void setRaw(Configuration conf, String kv) {
        int eq = kv.indexOf('=');
        if (eq <= 0) {
            throw new ConfigException("-D expects key=value, got '" + kv + "'");
        }
        setKey(conf, kv.substring(0, eq).trim(), kv.substring(eq + 1).trim(), "-D " + kv);
    }

    private static String requireValue(String[] args, int i, String flag) {
        if (i + 1 >= args.length) {
            throw new ConfigException("Option " + flag + " needs a value");
        }
        return args[i + 1];
    }

    /** Whether option takes true/false, asked of its own parser: an option without a default has no value to look at. */
    static boolean isBoolean(ConfigOption<?> option) {
        Configuration probe = new Configuration();
        probe.setString(option.key(), "true");
        try {
            return probe.get(option) instanceof Boolean;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    private static boolean isBooleanLiteral(String s) {
        return s.equalsIgnoreCase("true") || s.equalsIgnoreCase("false");
    }

    /** The --help text: usage, then every option with its flag, default and description. */
    public String help(String usage) {
        StringBuilder sb = new StringBuilder(usage).append("\n\nOptions (flag, YAML key, default):\n");
        for (ConfigOption<?> option : options) {
            String flag = "--" + flagOf(option);
            List<String> aliases = new ArrayList<>();
            byFlag.forEach((f, o) -> {
                if (o == option && !f.equals(flagOf(option))) {
                    aliases.add("--" + f);
                }
            });
            sb.append("  ").append(flag);
            if (!aliases.isEmpty()) {
                sb.append(" (").append(String.join(", ", aliases)).append(')');
            }
            if (!isBoolean(option)) {
                sb.append(" <value>");
            }
            sb.append("\n      key: ").append(option.key());
            if (option.hasDefaultValue()) {
                sb.append("   default: ").append(formatDefault(option.defaultValue()));
            }
            sb.append('\n');
            for (String line : wrap(describe(option), 90)) {
                sb.append("      ").append(line).append('\n');
            }
        }
        sb.append("  --config <file.yaml>\n      Read options from a YAML file (keys as above, nested or flat; arguments after it win).\n"
                + "      Unknown Fanout keys are refused; keys of Flink settings pass through.\n");
        sb.append("  -D <key>=<value>\n      Any Flink setting, e.g. -D state.backend.type=rocksdb.\n");
        sb.append("  --help\n      Print this help.\n");
        return sb.toString();
    }

    /**
     * The option reference as a Markdown table (flag and aliases, key, default, description), in --help order; the
     * README's copy between its {@code options} markers is generated from it and checked by OptionReferenceTest.
     */
    public String markdown() {
        StringBuilder sb = new StringBuilder("| flag | key | default | description |\n|---|---|---|---|\n");
        for (ConfigOption<?> option : options) {
            List<String> flags = new ArrayList<>();
            byFlag.forEach((f, o) -> {
                if (o == option) {
                    flags.add("`--" + f + (isBoolean(option) ? "" : " V") + "`");
                }
            });
            Object value = option.hasDefaultValue() ? option.defaultValue() : null;
            // Enum options parse case-insensitively; show their values as the descriptions spell them.
            String shown = value instanceof Enum<?> e ? e.name().toLowerCase(java.util.Locale.ROOT) : formatDefault(value);
            String defaultValue = value != null ? "`" + shown + "`" : "-";
            sb.append("| ").append(String.join(", ", flags))
                    .append(" | `").append(option.key()).append('`')
                    .append(" | ").append(defaultValue)
                    .append(" | ").append(describe(option).replace("|", "\\|").replace("\n", " "))
                    .append(" |\n");
        }
        return sb.toString();
    }

    private static String formatDefault(Object value) {
        if (value instanceof java.time.Duration) {
            return org.apache.flink.util.TimeUtils.formatWithHighestUnit((java.time.Duration) value);
        }
        if (value instanceof Enum<?> e && e.toString().equals(e.name())) {
            return e.name().toLowerCase(java.util.Locale.ROOT); // the CLI's spelling (Flink parses either case)
        }
        return String.valueOf(value);
    }

    private static String describe(ConfigOption<?> option) {
        StringBuilder sb = new StringBuilder();
        for (BlockElement block : option.description().getBlocks()) {
            if (block instanceof TextElement) {
                sb.append(((TextElement) block).getFormat());
            }
        }
        return sb.toString();
    }

    private static List<String> wrap(String text, int width) {
        if (text.isEmpty()) {
            return Collections.emptyList();
        }
        List<String> lines = new ArrayList<>();
        StringBuilder line = new StringBuilder();
        for (String word : text.split(" ")) {
            if (line.length() > 0 && line.length() + 1 + word.length() > width) {
                lines.add(line.toString());
                line.setLength(0);
            }
            if (line.length() > 0) {
                line.append(' ');
            }
            line.append(word);
        }
        lines.add(line.toString());
        return lines;
    }
}
