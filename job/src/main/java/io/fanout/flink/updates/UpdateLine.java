package io.fanout.flink.updates;

/** One line of a graph-update source (a Flink POJO): its text with where it came from. */
public class UpdateLine {
    /** The file, or {@code socket host:port}. */
    public String source;
    /** 1-based line in {@link #source}, or 0 when the reader counts lines itself (one socket stream). */
    public long line;
    /** The line, or null at the end of a file (which commits the file's last version). */
    public String text;

    public UpdateLine() {}

    public UpdateLine(String source, long line, String text) {
        this.source = source;
        this.line = line;
        this.text = text;
    }
}
