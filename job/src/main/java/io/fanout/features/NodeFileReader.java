package io.fanout.features;

import io.fanout.graph.GraphFiles;
import io.fanout.graph.GraphFormatException;
import io.fanout.graph.NodeIdCollector;
import io.fanout.graph.NodeIdMap;
import io.fanout.graph.NodeIdSet;
import it.unimi.dsi.fastutil.longs.LongOpenHashSet;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.LongConsumer;

/**
 * Reads node files ({@code nodes.tsv[.gz]}: {@code id<TAB>label<TAB>f0<TAB>f1...}, label -1 = unlabelled) into
 * {@link NodeRows}, which become a {@link NodeFeatures} store once the graph's node ids are known.
 *
 * <p>Input: one file, or a directory whose {@code nodes*.tsv[.gz]} files are parts read in name order. Lines
 * starting with {@code #} are skipped. Fields are separated by runs of tabs or spaces. Every row has the same
 * number of fields (2 = labels only); ids are non-negative int64, labels whole numbers {@code >= -1}, features
 * finite decimals (no NaN or infinity). Each violation, and an id given twice, is a {@link GraphFormatException}
 * naming the file and line.
 */
public final class NodeFileReader {
    private static final int TOKEN_CHARS = 40;
    /** Floats per staging page (16 MiB). */
    private static final int PAGE_FLOATS = 1 << 22;

    private NodeFileReader() {}

    /** Reads every row of the node file(s) at {@code path}. */
    public static NodeRows read(Path path) throws IOException {
        return parse(path, null);
    }

    /**
     * Validates every row of the node file(s) at {@code path} as {@link #read} does but keeps only the ids, in
     * {@code ids}; an id given twice is found too (a second pass, only then). Returns the number of rows.
     */
    public static long scanIds(Path path, NodeIdSet ids) throws IOException {
        NodeRows rows = parse(path, (LongConsumer) ids::add);
        NodeIdMap distinct = ids.toMap();
        if (distinct.size() < rows.size) {
            LongOpenHashSet seen = new LongOpenHashSet();
            throw errorAtFirst(path, id -> !seen.add(id), NodeFileReader::givenTwice);
        }
        return rows.size;
    }

    /** The problem of a node file row whose id an earlier row has. */
    public static String givenTwice(long id) {
        return "node id " + id + " is given twice (an earlier line has it too)";
    }

    /**
     * Validates every row of the node file(s) at {@code path} as {@link #read} does and hands each row's id to
     * {@code ids}, keeping nothing: an id given twice is not looked for (a caller that sorts the ids finds it, and
     * names its line with {@link #errorAtFirst}). Returns the number of rows.
     */
    public static long streamIds(Path path, LongConsumer ids) throws IOException {
        return parse(path, ids).size;
    }

    /**
     * Reads the node file(s) at {@code path} again and returns {@code problem} of the id as an error naming the file
     * and line of the first row whose id passes {@code test} (which may count: it sees the ids in file order). An
     * earlier read found such a row: if none passes now, the file changed in between (an IllegalStateException).
     */
    public static GraphFormatException errorAtFirst(Path path, java.util.function.LongPredicate test,
            java.util.function.LongFunction<String> problem) throws IOException {
        List<Path> files = GraphFiles.parts(path, "nodes", "node");
        NodeRows again = new NodeRows(files, id -> {
            if (test.test(id)) {
                throw new FoundId(id);
            }
        });
        try {
            for (int part = 0; part < files.size(); part++) {
                new Parser(files.get(part), part, again).parse();
            }
        } catch (FoundId found) {
            return again.error(again.size - 1, problem.apply(found.id));
        }
        throw new IllegalStateException(path + " changed while it was read: no row is the one its first read found");
    }

    /** One node-file row as streamed. */
    @FunctionalInterface
    public interface RowConsumer {
        /**
         * @param label the row's label, -1 = unlabelled
         * @param features the row's {@code dim} feature values; reused for the next row
         */
        void accept(long id, int label, float[] features) throws IOException;
    }

    /** The node-file parts at {@code path} ({@code nodes*.tsv[.gz]} of a directory, or the one file), in read order. */
    public static List<Path> parts(Path path) throws IOException {
        return GraphFiles.parts(path, "nodes", "node");
    }

    /**
     * Streams the rows of part {@code part} of the node file(s) at {@code path} (see {@link #parts}) to
     * {@code out}, validating every row as {@link #read} does (file and line named), keeping nothing: how a
     * partitioned store loads node data on the TaskManagers. Checks across rows of several parts (the same
     * number of columns, an id given twice, a row for every node) are {@link #scanIds}'s. Returns the rows read.
     */
    public static long streamRows(Path path, int part, RowConsumer out) throws IOException {
        List<Path> files = parts(path);
        NodeRows rows = new NodeRows(files, id -> {});
        rows.sink = out;
        new Parser(files.get(part), part, rows).parse();
        return rows.size;
    }

    /**
     * Per feature column, the minimum ({@code [0]}) and maximum ({@code [1]}) over every row of the node file(s)
     * at {@code path}, streamed (heap: the two arrays): the uint8 quantisation's offset and range, as
     * {@link NodeRows#build} computes them from the rows it holds.
     */
    public static float[][] columnRanges(Path path) throws IOException {
        float[][] range = new float[2][];
        int numParts = parts(path).size();
        for (int part = 0; part < numParts; part++) {
            streamRows(path, part, (id, label, features) -> {
                if (range[0] == null) {
                    range[0] = new float[features.length];
                    range[1] = new float[features.length];
                    Arrays.fill(range[0], Float.POSITIVE_INFINITY);
                    Arrays.fill(range[1], Float.NEGATIVE_INFINITY);
                }
                for (int c = 0; c < features.length && c < range[0].length; c++) {
                    range[0][c] = Math.min(range[0][c], features[c]);
                    range[1][c] = Math.max(range[1][c], features[c]);
                }
            });
        }
        if (range[0] == null) {
            throw new GraphFormatException(path, "no node rows (expected id<TAB>label[<TAB>f0...] lines)");
        }
        return range;
    }

    /**
     * Fails unless the node file at {@code path}, whose ids are {@code fileIds}, has a row for every node of
     * {@code graph} (which holds every file id too).
     */
    public static void checkCovers(Path path, NodeIdMap graph, NodeIdMap fileIds) throws GraphFormatException {
        if (graph.size() == fileIds.size()) {
            return;
        }
        int missing = 0;
        long first = -1;
        for (int v = 0; v < graph.size(); v++) {
            if (!fileIds.contains(graph.id(v)) && missing++ == 0) {
                first = graph.id(v);
            }
        }
        throw missingRows(path, first, missing, graph.size());
    }

    /**
     * The error for a node file at {@code where} that has no row for {@code missing} of the graph's {@code numNodes}
     * nodes, the smallest of them {@code firstMissing}.
     */
    public static GraphFormatException missingRows(Path where, long firstMissing, long missing, long numNodes) {
        return new GraphFormatException(where, "the node file has no row for node id " + firstMissing
                + (missing > 1 ? " and " + (missing - 1) + " more of the graph's " + numNodes + " nodes" : "")
                + " (every node of the graph needs features and a label; -1 = unlabelled)");
    }

    /** Thrown inside a scan's id sink to stop at the row looked for (the first repeated id, or a test's match). */
    private static final class FoundId extends RuntimeException {
        private static final long serialVersionUID = 1L;
        final long id;

        FoundId(long id) {
            super(null, null, false, false);
            this.id = id;
        }
    }

    private static NodeRows parse(Path path, LongConsumer idsOnly) throws IOException {
        List<Path> files = GraphFiles.parts(path, "nodes", "node");
        NodeRows rows = new NodeRows(files, idsOnly);
        for (int part = 0; part < files.size(); part++) {
            new Parser(files.get(part), part, rows).parse();
        }
        if (rows.size == 0) {
            throw new GraphFormatException(path, "no node rows (expected id<TAB>label[<TAB>f0...] lines)");
        }
        return rows;
    }

    /** The rows of the node files as read (file order), before they are indexed by node. */
    public static final class NodeRows {
        private final List<Path> files;
        private int dim = -1;
        private int size;
        private long[] ids = new long[1024];
        private int[] labels = new int[1024];
        /** (part << 40) | line of each row, for messages. */
        private long[] where = new long[1024];
        private final List<float[]> pages = new ArrayList<>();
        private int rowsPerPage;
        /** In a scan: where ids go; rows are validated, nothing else is kept. */
        private final LongConsumer idsOnly;
        private float[] scratch;
        private long line;
        private int part;
        /** In a stream: where each parsed row goes (with the scan's validation, nothing kept). */
        private RowConsumer sink;
        private long lastId;
        private int lastLabel;

        NodeRows(List<Path> files, LongConsumer idsOnly) {
            this.files = files;
            this.idsOnly = idsOnly;
        }

        /** Number of rows read. */
        public int size() {
            return size;
        }

        /** Features per row. */
        public int dim() {
            return dim;
        }

        /** Adds every row's id to {@code collector}. */
        public void collectIds(NodeIdCollector collector) {
            collector.add(ids, size);
        }

        /** Fails naming the file and line of the first id that is not below {@code numNodes} (a declared count). */
        public void checkBelow(long numNodes, String declaredIn) throws GraphFormatException {
            for (int i = 0; i < size; i++) {
                if (ids[i] >= numNodes) {
                    throw error(i, "node id " + ids[i] + " is not below num_nodes=" + numNodes + " declared in "
                            + declaredIn);
                }
            }
        }

        /**
         * Indexes the rows by {@code nodes} in {@code dtype}. Every node of the map needs exactly one row.
         *
         * @throws GraphFormatException for an id given twice (both lines named) or a node without a row
         */
        public NodeFeatures build(NodeIdMap nodes, FeatureDType dtype) throws GraphFormatException {
            int n = nodes.size();
            int[] rowOf = new int[n];
            Arrays.fill(rowOf, -1);
            boolean inOrder = size == n;
            for (int i = 0; i < size; i++) {
                int node = nodes.indexOf(ids[i]);
                if (node < 0) {
                    throw error(i, "node id " + ids[i] + " is not a node of the graph");
                }
                if (rowOf[node] >= 0) {
                    throw error(i, "node id " + ids[i] + " already has a row at " + describe(rowOf[node]));
                }
                rowOf[node] = i;
                inOrder &= node == i;
            }
            int missing = 0;
            int firstMissing = -1;
            for (int v = 0; v < n; v++) {
                if (rowOf[v] < 0) {
                    if (missing++ == 0) {
                        firstMissing = v;
                    }
                }
            }
            if (missing > 0) {
                throw missingRows(files.size() == 1 ? files.get(0) : files.get(0).getParent(), nodes.id(firstMissing),
                        missing, n);
            }
            int[] labelOf = new int[n];
            for (int v = 0; v < n; v++) {
                labelOf[v] = labels[rowOf[v]];
            }
            return encode(n, dtype, inOrder ? null : rowOf, labelOf);
        }

        /** The stored rows in {@code dtype}, file order (rowOf maps nodes to them). */
        private NodeFeatures encode(int n, FeatureDType dtype, int[] rowOf, int[] labelOf) {
            int d = Math.max(dim, 0);
            int rowBytes = d * dtype.bytes();
            int perPage = NodeFeatures.rowsPerPage(rowBytes);
            int numPages = size == 0 ? 0 : (size + perPage - 1) / perPage;
            byte[][] out = new byte[Math.max(numPages, 1)][];
            float[] scale = null;
            float[] offset = null;
            double maxError = 0;
            if (dtype == FeatureDType.UINT8) {
                float[] min = new float[d];
                float[] max = new float[d];
                Arrays.fill(min, Float.POSITIVE_INFINITY);
                Arrays.fill(max, Float.NEGATIVE_INFINITY);
                for (int r = 0; r < size; r++) {
                    float[] page = pages.get(r / rowsPerPage);
                    int at = (r % rowsPerPage) * d;
                    for (int c = 0; c < d; c++) {
                        min[c] = Math.min(min[c], page[at + c]);
                        max[c] = Math.max(max[c], page[at + c]);
                    }
                }
                scale = new float[d];
                offset = min;
                for (int c = 0; c < d; c++) {
                    scale[c] = (max[c] - min[c]) / 255f;
                }
            }
            for (int p = 0; p < numPages; p++) {
                int first = p * perPage;
                int count = Math.min(perPage, size - first);
                byte[] bytes = new byte[count * rowBytes];
                int k = 0;
                for (int r = first; r < first + count; r++) {
                    float[] page = pages.get(r / rowsPerPage);
                    int at = (r % rowsPerPage) * d;
                    for (int c = 0; c < d; c++) {
                        float v = page[at + c];
                        switch (dtype) {
                            case FLOAT16: {
                                short h = Float16.fromFloat(v);
                                bytes[k++] = (byte) h;
                                bytes[k++] = (byte) (h >> 8);
                                maxError = Math.max(maxError, Math.abs(Float16.toFloat(h) - (double) v));
                                break;
                            }
                            case UINT8: {
                                int q = scale[c] == 0f ? 0 : Math.round((v - offset[c]) / scale[c]);
                                q = Math.max(0, Math.min(255, q));
                                bytes[k++] = (byte) q;
                                // The client's float32 arithmetic: offset + scale * q.
                                maxError = Math.max(maxError, Math.abs((offset[c] + scale[c] * q) - (double) v));
                                break;
                            }
                            case FLOAT32:
                            default: {
                                int bits = Float.floatToRawIntBits(v);
                                bytes[k++] = (byte) bits;
                                bytes[k++] = (byte) (bits >> 8);
                                bytes[k++] = (byte) (bits >> 16);
                                bytes[k++] = (byte) (bits >> 24);
                            }
                        }
                    }
                }
                out[p] = bytes;
            }
            if (numPages == 0) {
                out[0] = new byte[0];
            }
            return new NodeFeatures(n, d, dtype, out, perPage, rowOf, labelOf, scale, offset, maxError);
        }

        private String describe(int row) {
            return files.get((int) (where[row] >>> 40)) + " line " + (where[row] & ((1L << 40) - 1));
        }

        private GraphFormatException error(int row, String problem) {
            if (idsOnly != null) { // a scan keeps only the last row's place
                return new GraphFormatException(files.get(part), line, problem);
            }
            return new GraphFormatException(files.get((int) (where[row] >>> 40)), where[row] & ((1L << 40) - 1), problem);
        }

        /** Starts a row and returns the page and offset its {@code dim} floats go to. */
        float[] startRow(long id, int label, int part, long line) {
            if (idsOnly != null) {
                this.part = part;
                this.line = line;
                size++;
                idsOnly.accept(id);
                lastId = id;
                lastLabel = label;
                if (scratch == null) {
                    scratch = new float[dim];
                }
                return scratch;
            }
            if (size == ids.length) {
                int grown = (int) Math.min((long) ids.length * 2, NodeIdMap.MAX_NODES);
                ids = Arrays.copyOf(ids, grown);
                labels = Arrays.copyOf(labels, grown);
                where = Arrays.copyOf(where, grown);
            }
            ids[size] = id;
            labels[size] = label;
            where[size] = ((long) part << 40) | line;
            int page = size / rowsPerPage;
            if (page == pages.size()) {
                pages.add(new float[rowsPerPage * dim]);
            }
            size++;
            return pages.get(page);
        }

        /** Ends a row whose features are parsed: a stream hands it on. */
        void endRow() throws IOException {
            if (sink != null) {
                sink.accept(lastId, lastLabel, scratch);
            }
        }

        int rowOffset() {
            return idsOnly != null ? 0 : ((size - 1) % rowsPerPage) * dim;
        }

        void setDim(int d) {
            dim = d;
            rowsPerPage = Math.max(1, PAGE_FLOATS / Math.max(d, 1)); // 16 MiB staging pages, allocated as rows come
        }
    }

    /** Parses one file's lines into {@link NodeRows}. */
    private static final class Parser {
        private final Path file;
        private final int part;
        private final NodeRows rows;
        private byte[] line = new byte[1 << 16];
        private int length;
        private long lineNo;

        Parser(Path file, int part, NodeRows rows) {
            this.file = file;
            this.part = part;
            this.rows = rows;
        }

        void parse() throws IOException {
            try (InputStream in = new BufferedInputStream(GraphFiles.open(file), 1 << 16)) {
                while (readLine(in)) {
                    lineNo++;
                    if (length > 0 && line[0] == '#') {
                        continue;
                    }
                    parseRow();
                }
            } catch (GraphFormatException e) {
                throw e;
            } catch (IOException e) {
                throw new IOException("cannot read " + file + " after line " + lineNo + ": " + e, e);
            }
        }

        private boolean readLine(InputStream in) throws IOException {
            length = 0;
            int c = in.read();
            if (c < 0) {
                return false;
            }
            while (c >= 0 && c != '\n') {
                if (length == line.length) {
                    line = Arrays.copyOf(line, line.length * 2);
                }
                line[length++] = (byte) c;
                c = in.read();
            }
            if (length > 0 && line[length - 1] == '\r') {
                length--;
            }
            return true;
        }

        private void parseRow() throws IOException {
            int fields = countFields();
            if (fields == 0) {
                throw error("empty line (expected id<TAB>label[<TAB>f0...]; only '#' lines may be skipped)");
            }
            if (fields == 1) {
                throw error("missing label column (expected id<TAB>label[<TAB>f0...])");
            }
            if (rows.dim < 0) {
                rows.setDim(fields - 2);
            } else if (fields - 2 != rows.dim) {
                throw error("ragged row: " + (fields - 2) + " features where earlier rows have " + rows.dim
                        + " (" + (fields - 2 > rows.dim ? "extra" : "missing") + " columns)");
            }
            int p = skipBlanks(0);
            int end = fieldEnd(p);
            long id = parseId(p, end);
            p = skipBlanks(end);
            end = fieldEnd(p);
            int label = parseLabel(p, end);
            float[] page = rows.startRow(id, label, part, lineNo);
            int at = rows.rowOffset();
            for (int c = 0; c < rows.dim; c++) {
                p = skipBlanks(end);
                end = fieldEnd(p);
                page[at + c] = parseFeature(p, end, c);
            }
            rows.endRow();
        }

        private int countFields() {
            int fields = 0;
            int p = skipBlanks(0);
            while (p < length) {
                fields++;
                p = skipBlanks(fieldEnd(p));
            }
            return fields;
        }

        private long parseId(int p, int end) throws GraphFormatException {
            long value = 0;
            if (p == end) {
                throw error("missing id");
            }
            for (int i = p; i < end; i++) {
                int digit = line[i] - '0';
                if (digit < 0 || digit > 9) {
                    throw error((line[p] == '-' ? "negative" : "non-numeric") + " node id '" + token(p, end) + "'");
                }
                if (value > (Long.MAX_VALUE - digit) / 10) {
                    throw error("node id " + token(p, end) + " is out of the int64 range");
                }
                value = value * 10 + digit;
            }
            return value;
        }

        private int parseLabel(int p, int end) throws GraphFormatException {
            boolean negative = line[p] == '-';
            int i = negative ? p + 1 : p;
            long value = 0;
            if (i == end) {
                throw error("label '" + token(p, end) + "' is not an integer");
            }
            for (; i < end; i++) {
                int digit = line[i] - '0';
                if (digit < 0 || digit > 9) {
                    throw error("label '" + token(p, end) + "' is not an integer (-1 = unlabelled)");
                }
                value = value * 10 + digit;
                if (value > Integer.MAX_VALUE) {
                    throw error("label " + token(p, end) + " is out of the int32 range");
                }
            }
            if (negative && value != 1) {
                throw error("label " + token(p, end) + " is negative (only -1, unlabelled, is allowed)");
            }
            return negative ? -1 : (int) value;
        }

        private float parseFeature(int p, int end, int column) throws GraphFormatException {
            // Fast path: a whole number such as the 0/1 bag-of-words features.
            int i = p;
            boolean negative = line[i] == '-';
            if (negative || line[i] == '+') {
                i++;
            }
            int digits = i;
            long value = 0;
            while (i < end && line[i] >= '0' && line[i] <= '9' && i - digits < 18) {
                value = value * 10 + (line[i] - '0');
                i++;
            }
            if (i == end && i > digits) {
                return negative ? -(float) value : (float) value;
            }
            for (int j = p; j < end; j++) { // plain decimals only (parseFloat also takes "NaN", "Infinity", "1f", hex)
                byte c = line[j];
                if (!((c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' || c == '-' || c == '+')) {
                    throw error("feature f" + column + " '" + token(p, end) + "' is not a finite decimal number");
                }
            }
            float parsed;
            try {
                parsed = Float.parseFloat(new String(line, p, end - p, StandardCharsets.ISO_8859_1));
            } catch (NumberFormatException e) {
                throw error("feature f" + column + " '" + token(p, end) + "' is not a decimal number");
            }
            if (!Float.isFinite(parsed)) {
                throw error("feature f" + column + " '" + token(p, end) + "' is out of the float32 range");
            }
            return parsed;
        }

        private int skipBlanks(int p) {
            while (p < length && (line[p] == '\t' || line[p] == ' ')) {
                p++;
            }
            return p;
        }

        private int fieldEnd(int p) {
            while (p < length && line[p] != '\t' && line[p] != ' ') {
                p++;
            }
            return p;
        }

        private String token(int p, int end) {
            int shown = Math.min(end - p, TOKEN_CHARS);
            String text = new String(line, p, shown, StandardCharsets.UTF_8);
            return shown < end - p ? text + "..." : text;
        }

        private GraphFormatException error(String problem) {
            return new GraphFormatException(file, lineNo, problem);
        }
    }
}
