package io.fanout.graph;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The settings an edge file's line-1 {@code #} header declares ({@code key=value} pairs); every key is optional.
 *
 * <p>Keys read: {@code directed}, {@code columns}, {@code num_nodes}, {@code id_base} and {@code num_edges} (a
 * capacity hint, checked against the rows read). Other keys ({@code name}, {@code self_loops}, ...) are metadata
 * and ignored.
 */
final class EdgeFileHeader {
    /** An optional per-edge column after {@code src,dst}. */
    enum Column {
        WEIGHT, TIMESTAMP;

        String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** Declared nothing: a file without a header line. */
    static final EdgeFileHeader NONE = new EdgeFileHeader(null, null, -1, -1, -1);

    /** {@code directed=}, or null when not declared. */
    final Boolean directed;
    /** The columns after {@code src,dst} from {@code columns=}, or null when not declared. */
    final Column[] extras;
    /** {@code num_nodes=}, or -1. */
    final long numNodes;
    /** {@code id_base=}, or -1. */
    final long idBase;
    /** {@code num_edges=} (rows in the file), or -1. */
    final long numEdges;

    private EdgeFileHeader(Boolean directed, Column[] extras, long numNodes, long idBase, long numEdges) {
        this.directed = directed;
        this.extras = extras;
        this.numNodes = numNodes;
        this.idBase = idBase;
        this.numEdges = numEdges;
    }

    /** Parses a header line (starting with {@code #}), which is line 1 of {@code file}. */
    static EdgeFileHeader parse(String line, Path file) throws GraphFormatException {
        Boolean directed = null;
        Column[] extras = null;
        long numNodes = -1;
        long idBase = -1;
        long numEdges = -1;
        for (String token : line.substring(1).trim().split("\\s+")) {
            int eq = token.indexOf('=');
            if (eq <= 0) {
                continue; // free text in the header is allowed
            }
            String key = token.substring(0, eq);
            String value = token.substring(eq + 1);
            switch (key) {
                case "directed":
                    if (value.equalsIgnoreCase("true")) {
                        directed = Boolean.TRUE;
                    } else if (value.equalsIgnoreCase("false")) {
                        directed = Boolean.FALSE;
                    } else {
                        throw new GraphFormatException(file, 1, "header directed=" + value + " must be true or false");
                    }
                    break;
                case "columns":
                    extras = parseColumns(value, file);
                    break;
                case "num_nodes":
                    numNodes = parseCount(key, value, GraphLoader.MAX_NODES, file);
                    break;
                case "id_base":
                    idBase = parseCount(key, value, Integer.MAX_VALUE, file);
                    break;
                case "num_edges":
                    numEdges = parseCount(key, value, Long.MAX_VALUE, file);
                    break;
                default:
                    break; // metadata such as name=, self_loops=, weight_note=
            }
        }
        return new EdgeFileHeader(directed, extras, numNodes, idBase, numEdges);
    }

    private static Column[] parseColumns(String value, Path file) throws GraphFormatException {
        String[] names = value.split(",", -1);
        if (names.length < 2 || !names[0].equals("src") || !names[1].equals("dst")) {
            throw new GraphFormatException(file, 1, "header columns=" + value + " must start with src,dst");
        }
        List<Column> extras = new ArrayList<>();
        for (int i = 2; i < names.length; i++) {
            Column column;
            if (names[i].equals("weight")) {
                column = Column.WEIGHT;
            } else if (names[i].equals("timestamp")) {
                column = Column.TIMESTAMP;
            } else {
                throw new GraphFormatException(file, 1, "header columns=" + value + " has unknown column '" + names[i]
                        + "' (known: src, dst, weight, timestamp)");
            }
            if (extras.contains(column)) {
                throw new GraphFormatException(file, 1, "header columns=" + value + " names " + names[i] + " twice");
            }
            extras.add(column);
        }
        return extras.toArray(new Column[0]);
    }

    private static long parseCount(String key, String value, long max, Path file) throws GraphFormatException {
        long parsed;
        try {
            parsed = Long.parseLong(value);
        } catch (NumberFormatException e) {
            throw new GraphFormatException(file, 1, "header " + key + "=" + value + " is not a whole number");
        }
        if (parsed < 0 || parsed > max) {
            throw new GraphFormatException(file, 1, "header " + key + "=" + value + " is out of range 0.." + max);
        }
        return parsed;
    }

    /** The {@code columns=} value for these extras, for messages. */
    static String columnsText(Column[] extras) {
        StringBuilder text = new StringBuilder("src,dst");
        for (Column column : extras) {
            text.append(',').append(column.label());
        }
        return text.toString();
    }
}
