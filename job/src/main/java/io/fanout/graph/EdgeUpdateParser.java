package io.fanout.graph;

import java.io.IOException;
import java.io.Serializable;

/**
 * Parses a graph-update stream, one line at a time: {@code version op src dst} ({@code op} {@code +} adds the edge,
 * {@code -} deletes one copy), {@code version} alone commits that version, {@code #} lines are skipped (a header
 * like the edge files'). Versions are int64 {@code >= 1} (0 is the loaded graph) and never go back; an update's
 * version must be above the last committed one, because a batch sampled at a committed version must already see
 * every update up to it.
 *
 * <p>A version is committed (every update {@code <= v} has been read) by a commit line, by the first update of a
 * higher version (which commits the previous version) and at the end of a file ({@link #endOfFile}). Each
 * update becomes the stored edges of its row as the graph's rows do: both directions for an undirected graph
 * (one for a self-loop), {@code src -> dst} for out-edges or {@code dst -> src} for in-edges. Ids are decimal
 * int64 shifted by the graph's id_base; an update may name nodes the graph does not have.
 */
public final class EdgeUpdateParser implements Serializable {
    private static final long serialVersionUID = 1L;

    /** Receives the parsed updates and commits, in stream order. */
    public interface Sink {
        /**
         * One stored edge of an update row.
         *
         * @param sequence the row's number among all additions/deletions (an addition's place in list order)
         * @param primary true for the first stored edge of the row (an undirected row yields two)
         * @param where "source line N", for messages about this update
         */
        void update(long node, long neighbor, boolean add, long version, long sequence, boolean primary, String where)
                throws IOException;

        /** Every update with a version {@code <= version} has been handed to {@link #update}. */
        void commit(long version) throws IOException;
    }

    private final boolean undirected;
    private final EdgeDirection direction;
    private final long idBase;

    /** The highest version read so far (0 before any). */
    private long last;
    /** The highest version committed (0 before any). */
    private long committed;
    private long sequence;

    public EdgeUpdateParser(boolean directed, EdgeDirection direction, long idBase) {
        this.undirected = !directed;
        this.direction = direction;
        this.idBase = idBase;
    }

    /** The highest version committed so far (0 before any). */
    public long committed() {
        return committed;
    }

    /** The parser's position, to checkpoint: {last, committed, sequence}. */
    public long[] position() {
        return new long[] {last, committed, sequence};
    }

    /** Continues from a {@link #position()}. */
    public void restore(long[] position) {
        last = position[0];
        committed = position[1];
        sequence = position[2];
    }

    /**
     * Parses line {@code line} (1-based) of {@code source}.
     *
     * @throws GraphFormatException naming source and line, for any line that is not an update, a commit or a header
     */
    public void line(String source, long line, String text, Sink out) throws IOException {
        if (text.startsWith("#")) {
            return;
        }
        String[] fields = text.strip().split("[ \t]+");
        if (text.isBlank()) {
            throw new GraphFormatException(source, line, "empty line (expected 'version op src dst', or 'version' to"
                    + " commit it; only '#' lines may be skipped)");
        }
        if (fields.length != 1 && fields.length != 4) {
            throw new GraphFormatException(source, line, fields.length + " fields: expected 'version op src dst'"
                    + " (op + or -), or 'version' alone to commit it");
        }
        long version = number(fields[0], "version", source, line);
        if (version < 1) {
            throw new GraphFormatException(source, line, "version " + version + " is below 1 (0 is the loaded graph)");
        }
        if (version < last) {
            throw new GraphFormatException(source, line, "version " + version + " after version " + last
                    + ": versions must not decrease");
        }
        if (fields.length == 1) {
            last = version;
            commit(version, out);
            return;
        }
        if (version <= committed) {
            throw new GraphFormatException(source, line, "version " + version + " is already committed (by a commit"
                    + " line, a higher version or the end of a file): an update needs a version above " + committed);
        }
        boolean add;
        if (fields[1].equals("+")) {
            add = true;
        } else if (fields[1].equals("-")) {
            add = false;
        } else {
            throw new GraphFormatException(source, line, "op '" + fields[1] + "': expected + (add) or - (delete)");
        }
        long src = id(fields[2], "src", source, line);
        long dst = id(fields[3], "dst", source, line);
        if (version > last && last > committed) {
            commit(last, out); // every update of the previous version has been read
        }
        last = version;
        long seq = ++sequence;
        String where = source + " line " + line;
        long from = direction == EdgeDirection.OUT ? src : dst;
        long to = direction == EdgeDirection.OUT ? dst : src;
        out.update(from, to, add, version, seq, true, where);
        if (undirected && src != dst) {
            out.update(to, from, add, version, seq, false, where);
        }
    }

    /** The end of a file (or of the stream): its last version is committed. */
    public void endOfFile(Sink out) throws IOException {
        if (last > committed) {
            commit(last, out);
        }
    }

    private void commit(long version, Sink out) throws IOException {
        if (version > committed) {
            committed = version;
            out.commit(version);
        }
    }

    private long id(String text, String column, String source, long line) throws GraphFormatException {
        long raw = number(text, column + " id", source, line);
        if (raw < idBase) {
            throw new GraphFormatException(source, line, column + " id " + raw + " is below id_base=" + idBase);
        }
        return raw - idBase;
    }

    private static long number(String text, String what, String source, long line) throws GraphFormatException {
        if (text.startsWith("-") && text.length() > 1 && text.substring(1).chars().allMatch(Character::isDigit)) {
            throw new GraphFormatException(source, line, "negative " + what + " " + text);
        }
        if (text.isEmpty() || !text.chars().allMatch(c -> c >= '0' && c <= '9')) {
            throw new GraphFormatException(source, line, "non-numeric " + what + " '" + text + "'");
        }
        try {
            return Long.parseLong(text);
        } catch (NumberFormatException e) {
            throw new GraphFormatException(source, line, what + " " + text + " is out of the int64 range");
        }
    }
}
