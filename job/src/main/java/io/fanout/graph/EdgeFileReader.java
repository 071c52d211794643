package io.fanout.graph;

import io.fanout.graph.EdgeFileHeader.Column;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * Parses one edge file's bytes straight into {@link EdgeStaging}: no per-line strings, no regex.
 *
 * <p>The buffer always holds whole lines when they are parsed (a partial last line is carried over to the
 * next read), so the per-field loops only ever look for the line's {@code '\n'}.
 */
final class EdgeFileReader {
    private static final int BUFFER_BYTES = 1 << 20;
    private static final int TOKEN_CHARS = 40;

    /** The graph-wide settings, established by the first file that declares or implies each one. */
    static final class Settings {
        /** Effective directedness: declared, or the caller's option; set by the first file. */
        Boolean directed;
        /** Name of the file that fixed {@link #directed}, for messages. */
        Path directedFrom;
        /** The caller's directedness (option fanout.directed), or null: then the first file must declare it. */
        Boolean directedOption;
        /** Columns after src,dst; null until declared or inferred from the first data row. */
        Column[] extras;
        Path extrasFrom;
        /** Declared num_nodes, or -1. */
        long numNodes = -1;
        Path numNodesFrom;
        /** id_base of the last file read; a file without id_base= inherits it. */
        long idBase = 0;
        /** Rows staged; created once the columns are known. */
        EdgeStaging staging;
        /** When set, rows are validated and handed here instead of being staged (a scan, a streamed load). */
        RowSink rows;
        /** Directed edges the rows yield so far (also counted in a scan). */
        long directedEdges;
        long capacityHint;
        /**
         * The weights drive sampling ({@code fanout.weight-column}): a negative weight is an error naming its line
         * instead of a value kept as it is (an edge feature may be signed, a sampling weight may not), and the files
         * must have a weight column of this name. Null: weights are data, any finite value.
         */
        String weightColumn;
        /** The timestamp column temporal sampling uses ({@code fanout.time-column}): it must exist; or null. */
        String timeColumn;
    }

    private final Path file;
    private final Settings settings;
    /** Allocated by a full read only: a header read (every earlier part's, per part a loader reads) needs none. */
    private byte[] buf;
    /** 1-based number of the line being parsed; unknown ({@link #lineKnown} false) in a range not at the file's start. */
    private long line;
    private boolean lineKnown = true;
    /** Offset in the (uncompressed) file of buf[0], and of the line being parsed. */
    private long bufBase;
    private long lineStart;
    /** Only lines starting before this offset are read ({@link #readRange}). */
    private long rangeEnd = Long.MAX_VALUE;
    /** The first bytes read up to and including a '\n' are the end of a line another range owns. */
    private boolean skipPartialLine;
    /** Rows are numbered by their byte offset (the order a range read can know) instead of their index. */
    private boolean rowsByOffset;
    /** Read the header and the first data row only, to learn the columns; hand no row on. */
    private boolean probe;
    private boolean stopped;
    private long rows;
    private long idBase;
    /** Declared num_nodes, or Long.MAX_VALUE. */
    private long declaredNodes;
    private boolean undirected;
    private Column[] extras;
    private EdgeStaging staging;
    private long declaredRows = -1;
    // Scratch for the row being parsed.
    private float weight;
    private long timestamp;

    EdgeFileReader(Path file, Settings settings) {
        this.file = file;
        this.settings = settings;
    }

    /** Where a streamed read hands each validated row (ids already shifted by id_base). */
    interface RowSink {
        /**
         * @param row the row's 0-based index in its file, {@code #} lines not counted; in a {@link #readRange} the
         *     byte offset of its line in the (uncompressed) file instead: ascending with the index as well
         */
        void accept(long src, long dst, float weight, long timestamp, long row) throws IOException;
    }

    /**
     * Reads only the header line (line 1) and merges it into the settings, as a full read would; returns this file's
     * own header ({@link EdgeFileHeader#NONE} when it has none).
     */
    EdgeFileHeader readHeader() throws IOException {
        try (java.io.BufferedReader in = new java.io.BufferedReader(new java.io.InputStreamReader(
                GraphFiles.open(file), java.nio.charset.StandardCharsets.UTF_8))) {
            String first = in.readLine();
            line = 1;
            EdgeFileHeader header = first != null && first.startsWith("#") ? EdgeFileHeader.parse(first, file)
                    : EdgeFileHeader.NONE;
            begin(header);
            return header;
        }
    }

    /**
     * The extra columns (weight, timestamp) this file's rows have, as a range read establishes them: from its header
     * (or an earlier file's, in {@code settings}), else from its first data row; null for a file without either.
     */
    Column[] columns() throws IOException {
        readHeader();
        if (settings.extras == null) {
            EdgeFileReader first = new EdgeFileReader(file, settings);
            first.probe = true;
            first.read();
        }
        return settings.extras;
    }

    /** Reads every row of the file into {@code settings.staging}; returns the number of rows read. */
    long read() throws IOException {
        try {
            readAll();
        } catch (GraphFormatException e) {
            throw e;
        } catch (IOException e) { // e.g. a truncated gzip stream: say which file and where
            throw new IOException("cannot read " + file + " after line " + line + ": " + e, e);
        }
        // An empty file declares nothing and has no row to read: the next file establishes the settings.
        if (!probe && declaredRows >= 0 && declaredRows != rows) {
            GraphLoader.LOG.warn("{}: header says num_edges={} but the file has {} edge rows", file, declaredRows, rows);
        }
        return rows;
    }

    /**
     * Reads the rows whose lines start at a byte offset in {@code [start, end)} of this (uncompressed) file, handing
     * each to {@link Settings#rows} numbered by that offset, so ranges that tile a file read every row once, in
     * parallel, and sorting by the number gives the file's row order. A range not at the file's start first reads
     * the header (and, when no header or earlier file gave the columns, the first data row) as a whole read would;
     * an error there names its line, counted from the file's start. Returns the rows read.
     */
    long readRange(long start, long end) throws IOException {
        if (settings.rows == null) {
            throw new IllegalStateException("a range read streams rows to a sink");
        }
        rowsByOffset = true;
        rangeEnd = end;
        if (start > 0) {
            readHeader();
            if (settings.extras == null) {
                EdgeFileReader first = new EdgeFileReader(file, settings);
                first.probe = true;
                first.read();
            }
            if (settings.extras != null) {
                useColumns(settings.extras);
            }
            lineKnown = false;
            skipPartialLine = true; // the bytes through the first '\n' from start - 1 belong to the line before
        }
        try {
            readAll(start > 0 ? start - 1 : 0);
        } catch (GraphFormatException e) {
            throw e;
        } catch (IOException e) {
            throw new IOException("cannot read " + file + " at byte " + lineStart + ": " + e, e);
        }
        return rows;
    }

    private void readAll() throws IOException {
        readAll(0);
    }

    private void readAll(long from) throws IOException {
        // A small range needs no megabyte of buffer (a longer line grows it, as in a whole read).
        buf = new byte[(int) Math.min(BUFFER_BYTES, Math.max(1 << 12, rangeEnd - from + 1))];
        try (InputStream in = GraphFiles.open(file)) {
            in.skipNBytes(from);
            bufBase = from;
            int start = 0;
            int limit = 0;
            while (!stopped) {
                if (limit == buf.length) {
                    if (start > 0) {
                        System.arraycopy(buf, start, buf, 0, limit - start);
                        limit -= start;
                        bufBase += start;
                        start = 0;
                    } else {
                        byte[] bigger = new byte[buf.length * 2]; // one line longer than the buffer
                        System.arraycopy(buf, 0, bigger, 0, limit);
                        buf = bigger;
                    }
                }
                int n = in.read(buf, limit, buf.length - limit);
                if (n < 0) {
                    if (limit > start) { // last line without a trailing newline
                        if (limit == buf.length) {
                            byte[] bigger = new byte[buf.length + 1];
                            System.arraycopy(buf, 0, bigger, 0, limit);
                            buf = bigger;
                        }
                        buf[limit++] = '\n';
                        parseLines(start, limit);
                    }
                    break;
                }
                // buf[start, limit) held no '\n' before this read, so only the new bytes can end a line.
                int floor = limit;
                limit += n;
                int end = limit;
                while (end > floor && buf[end - 1] != '\n') {
                    end--;
                }
                if (end > floor) {
                    parseLines(start, end);
                    start = end;
                }
            }
        }
    }

    /** Parses the whole lines in {@code buf[from, to)}; {@code buf[to - 1]} is {@code '\n'}. */
    private void parseLines(int from, int to) throws IOException {
        int p = from;
        while (p < to && !stopped) {
            if (skipPartialLine) {
                skipPartialLine = false;
                p = lineEnd(p) + 1;
                continue;
            }
            lineStart = bufBase + p;
            if (lineStart >= rangeEnd) {
                stopped = true;
                return;
            }
            line++;
            if (lineKnown && line == 1) {
                p = firstLine(p);
            } else if (buf[p] == '#') {
                p = lineEnd(p) + 1;
            } else if (probe) {
                if (extras == null) {
                    inferColumns(p);
                }
                stopped = true;
                return;
            } else {
                p = parseRow(p);
            }
        }
    }

    private int firstLine(int p) throws IOException {
        int end = lineEnd(p);
        if (buf[p] == '#') {
            begin(EdgeFileHeader.parse(new String(buf, p, end - p, StandardCharsets.UTF_8), file));
            return end + 1;
        }
        begin(EdgeFileHeader.NONE);
        if (probe) {
            if (extras == null) {
                inferColumns(p);
            }
            stopped = true;
            return end + 1;
        }
        return parseRow(p);
    }

    /** Merges this file's header into the graph-wide settings and fixes this file's parse rules. */
    private void begin(EdgeFileHeader header) throws GraphFormatException {
        Settings s = settings;
        if (header.directed != null && s.directedOption != null && !header.directed.equals(s.directedOption)) {
            throw new GraphFormatException(file, 1, "header directed=" + header.directed
                    + " disagrees with the option fanout.directed (--directed) " + s.directedOption);
        }
        if (s.directed == null) {
            // No silent default: a header-less undirected file loaded as directed samples half its edges.
            if (header.directed == null && s.directedOption == null) {
                throw new GraphFormatException(file, 1, "no directed= header: declare directed=true or directed=false"
                        + " in a first '#' line, or give the option fanout.directed (--directed true|false)");
            }
            s.directed = header.directed != null ? header.directed : s.directedOption;
            s.directedFrom = file;
        } else if (header.directed != null && !header.directed.equals(s.directed)) {
            throw new GraphFormatException(file, 1, "header directed=" + header.directed + " disagrees with directed="
                    + s.directed + " of " + s.directedFrom + " (all parts of one graph must agree)");
        }
        if (header.extras != null) {
            if (s.extras == null) {
                s.extras = header.extras;
                s.extrasFrom = file;
            } else if (!java.util.Arrays.equals(header.extras, s.extras)) {
                throw new GraphFormatException(file, 1, "header columns=" + EdgeFileHeader.columnsText(header.extras)
                        + " disagrees with columns=" + EdgeFileHeader.columnsText(s.extras) + " of " + s.extrasFrom);
            }
        }
        if (header.numNodes >= 0) {
            if (s.numNodes < 0) {
                s.numNodes = header.numNodes;
                s.numNodesFrom = file;
            } else if (header.numNodes != s.numNodes) {
                throw new GraphFormatException(file, 1, "header num_nodes=" + header.numNodes
                        + " disagrees with num_nodes=" + s.numNodes + " of " + s.numNodesFrom);
            }
        }
        if (header.idBase >= 0) {
            s.idBase = header.idBase;
        }
        if (header.numEdges >= 0) {
            declaredRows = header.numEdges;
            s.capacityHint = header.numEdges;
        }
        undirected = !s.directed;
        idBase = s.idBase;
        declaredNodes = s.numNodes >= 0 ? s.numNodes : Long.MAX_VALUE;
        if (s.extras != null) {
            useColumns(s.extras);
        }
    }

    private void useColumns(Column[] columns) throws GraphFormatException {
        extras = columns;
        requireColumn(columns, Column.WEIGHT, settings.weightColumn, "fanout.weight-column");
        requireColumn(columns, Column.TIMESTAMP, settings.timeColumn, "fanout.time-column");
        if (settings.rows != null) {
            return; // rows go to the sink, nothing is staged
        }
        if (settings.staging == null) {
            boolean weighted = false;
            boolean timed = false;
            for (Column column : columns) {
                weighted |= column == Column.WEIGHT;
                timed |= column == Column.TIMESTAMP;
            }
            settings.staging = new EdgeStaging(weighted, timed, settings.capacityHint);
        } else if (declaredRows > 0) {
            settings.staging.reserve(declaredRows);
        }
        staging = settings.staging;
    }

    /** An option naming a column ({@code wanted}, or null for none) needs a column of that kind and name. */
    private void requireColumn(Column[] columns, Column kind, String wanted, String option) throws GraphFormatException {
        if (wanted != null && !(Arrays.asList(columns).contains(kind) && kind.label().equals(wanted))) {
            throw error("option " + option + " '" + wanted + "': no such " + kind.label() + " column (the edge files have "
                    + EdgeFileHeader.columnsText(columns) + ")");
        }
    }

    /** Parses one data row starting at {@code p}; returns the index after its {@code '\n'}. */
    private int parseRow(int p) throws IOException {
        if (extras == null) {
            inferColumns(p);
        }
        p = skipBlanks(p);
        if (buf[p] == '\n') {
            throw error("empty line (expected " + EdgeFileHeader.columnsText(extras) + "; only '#' lines may be skipped)");
        }
        int start = p;
        p = idEnd(p, "src");
        long src = id(start, p, "src");
        p = skipBlanks(p);
        if (buf[p] == '\n') {
            throw error("missing column dst (expected " + EdgeFileHeader.columnsText(extras) + ")");
        }
        start = p;
        p = idEnd(p, "dst");
        long dst = id(start, p, "dst");
        for (Column column : extras) {
            p = skipBlanks(p);
            if (buf[p] == '\n') {
                throw error("missing column " + column.label() + " (expected " + EdgeFileHeader.columnsText(extras) + ")");
            }
            int field = p;
            p = column == Column.WEIGHT ? parseWeight(p) : parseTimestamp(p);
            if (column == Column.WEIGHT && settings.weightColumn != null && weight < 0) {
                throw error("negative weight '" + token(field) + "': weighted sampling (option"
                        + " fanout.weight-column) needs weights >= 0 (shift or take |w| first)");
            }
        }
        p = skipBlanks(p);
        if (buf[p] != '\n') {
            throw error("too many columns: '" + token(p) + "' after " + (2 + extras.length) + " columns (expected "
                    + EdgeFileHeader.columnsText(extras) + ")");
        }
        int cost = undirected && src != dst ? 2 : 1;
        if (settings.directedEdges + cost > GraphLoader.MAX_EDGES) {
            throw error("more than " + GraphLoader.MAX_EDGES + " directed edges: too many for the int32 CSR store");
        }
        settings.directedEdges += cost;
        if (settings.rows != null) {
            settings.rows.accept(src, dst, weight, timestamp, rowsByOffset ? lineStart : rows);
        } else {
            staging.add(src, dst, weight, timestamp, cost);
        }
        rows++;
        return p + 1;
    }

    /** Without a columns= header, the first data row's field count decides: src,dst[,weight[,timestamp]]. */
    private void inferColumns(int p) throws GraphFormatException {
        int fields = 0;
        p = skipBlanks(p);
        while (buf[p] != '\n') {
            fields++;
            while (!isBlank(buf[p]) && buf[p] != '\n') {
                p++;
            }
            p = skipBlanks(p);
        }
        Column[] columns;
        switch (fields) {
            case 0:
                throw error("empty line where the first edge row was expected");
            case 1:
                throw error("missing column dst (no columns= header, so the first row needs src and dst)");
            case 2:
                columns = new Column[0];
                break;
            case 3:
                columns = new Column[] {Column.WEIGHT};
                break;
            case 4:
                columns = new Column[] {Column.WEIGHT, Column.TIMESTAMP};
                break;
            default:
                throw error("too many columns: " + fields + " fields and no columns= header (expected 2 to 4:"
                        + " src,dst[,weight[,timestamp]])");
        }
        settings.extras = columns;
        settings.extrasFrom = file;
        useColumns(columns);
    }

    /** Scans an unsigned decimal id; returns the index after its digits, or fails with what is wrong. */
    private int idEnd(int p, String column) throws GraphFormatException {
        int start = p;
        while (buf[p] >= '0' && buf[p] <= '9') {
            p++;
        }
        if (p == start || !(isBlank(buf[p]) || buf[p] == '\n')) {
            String text = token(start);
            if (text.startsWith("-") && text.length() > 1 && isDigits(text.substring(1))) {
                throw error("negative " + column + " id " + text);
            }
            throw error("non-numeric " + column + " id '" + text + "'");
        }
        return p;
    }

    /** The id of digits {@code buf[start, end)}, shifted by id_base and checked against int64 and num_nodes. */
    private long id(int start, int end, String column) throws GraphFormatException {
        long raw = 0;
        for (int i = start; i < end; i++) {
            int digit = buf[i] - '0';
            if (raw > (Long.MAX_VALUE - digit) / 10) {
                throw error(column + " id " + token(start) + " is out of the int64 range");
            }
            raw = raw * 10 + digit;
        }
        long id = raw - idBase;
        if (id < 0) {
            throw error(column + " id " + raw + " is below id_base=" + idBase);
        }
        if (id >= declaredNodes && settings.numNodes >= 0) { // undeclared: Long.MAX_VALUE itself is an id
            throw error(column + " id " + raw + " is not below num_nodes=" + declaredNodes + " declared in "
                    + (settings.numNodesFrom.equals(file) ? "the header" : settings.numNodesFrom.toString()));
        }
        return id;
    }

    private int parseWeight(int p) throws GraphFormatException {
        int start = p;
        int i = p;
        boolean negative = buf[i] == '-';
        if (negative || buf[i] == '+') {
            i++;
        }
        int digitsStart = i;
        long value = 0;
        while (buf[i] >= '0' && buf[i] <= '9' && i - digitsStart < 18) {
            value = value * 10 + (buf[i] - '0');
            i++;
        }
        if (i > digitsStart && (isBlank(buf[i]) || buf[i] == '\n')) { // fast path: a whole number
            weight = negative ? -(float) value : (float) value;
            return i;
        }
        int end = fieldEnd(start);
        for (int j = start; j < end; j++) { // only plain decimals (Float.parseFloat also takes "NaN", "1f", hex)
            byte c = buf[j];
            if (!((c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' || c == '-' || c == '+')) {
                throw error("bad weight '" + token(start) + "' (expected a decimal number)");
            }
        }
        float parsed;
        try {
            parsed = Float.parseFloat(new String(buf, start, end - start, StandardCharsets.ISO_8859_1));
        } catch (NumberFormatException e) {
            throw error("bad weight '" + token(start) + "' (expected a decimal number)");
        }
        if (!Float.isFinite(parsed)) {
            throw error("bad weight '" + token(start) + "' (out of float range)");
        }
        weight = parsed;
        return end;
    }

    private int parseTimestamp(int p) throws GraphFormatException {
        int start = p;
        boolean negative = buf[p] == '-';
        if (negative || buf[p] == '+') {
            p++;
        }
        int digitsStart = p;
        long value = 0;
        while (buf[p] >= '0' && buf[p] <= '9') {
            int digit = buf[p] - '0';
            if (value > (Long.MAX_VALUE - digit) / 10) {
                throw error("bad timestamp '" + token(start) + "' (out of int64 range)");
            }
            value = value * 10 + digit;
            p++;
        }
        if (p == digitsStart || !(isBlank(buf[p]) || buf[p] == '\n')) {
            throw error("bad timestamp '" + token(start) + "' (expected a whole number)");
        }
        timestamp = negative ? -value : value;
        return p;
    }

    private int skipBlanks(int p) {
        while (isBlank(buf[p])) {
            p++;
        }
        return p;
    }

    /** Fields are separated by runs of tabs or spaces; a CR (Windows line end) counts as a blank. */
    private static boolean isBlank(byte c) {
        return c == '\t' || c == ' ' || c == '\r';
    }

    private int fieldEnd(int p) {
        while (!isBlank(buf[p]) && buf[p] != '\n') {
            p++;
        }
        return p;
    }

    private int lineEnd(int p) {
        while (buf[p] != '\n') {
            p++;
        }
        return p;
    }

    /** The field starting at {@code p}, shortened for messages. */
    private String token(int p) {
        int end = fieldEnd(p);
        int shown = Math.min(end - p, TOKEN_CHARS);
        String text = new String(buf, p, shown, StandardCharsets.UTF_8);
        return shown < end - p ? text + "..." : text;
    }

    private static boolean isDigits(String text) {
        for (int i = 0; i < text.length(); i++) {
            if (text.charAt(i) < '0' || text.charAt(i) > '9') {
                return false;
            }
        }
        return !text.isEmpty();
    }

    private GraphFormatException error(String problem) {
        if (lineKnown) {
            return new GraphFormatException(file, line, problem);
        }
        try {
            return new GraphFormatException(file, lineNumberAt(lineStart), problem);
        } catch (IOException e) {
            return new GraphFormatException(file, "byte " + lineStart + ": " + problem);
        }
    }

    /** The 1-based number of the line starting at byte {@code offset}: counted only for an error in a range read. */
    private long lineNumberAt(long offset) throws IOException {
        long lines = 1;
        byte[] chunk = new byte[1 << 16];
        try (InputStream in = GraphFiles.open(file)) {
            long left = offset;
            while (left > 0) {
                int n = in.read(chunk, 0, (int) Math.min(chunk.length, left));
                if (n < 0) {
                    break;
                }
                for (int i = 0; i < n; i++) {
                    if (chunk[i] == '\n') {
                        lines++;
                    }
                }
                left -= n;
            }
        }
        return lines;
    }
}
