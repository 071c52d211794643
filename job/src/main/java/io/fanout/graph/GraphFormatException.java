package io.fanout.graph;

import java.io.IOException;
import java.nio.file.Path;

/** An edge file (or graph directory) that does not follow the edge-file format, with the file and line at fault. */
public class GraphFormatException extends IOException {
    private static final long serialVersionUID = 1L;

    private final String file;
    private final long line;

    /** A problem on one line of {@code file}; {@code line} is 1-based. */
    public GraphFormatException(Path file, long line, String problem) {
        super(file + " line " + line + ": " + problem);
        this.file = file.toString();
        this.line = line;
    }

    /** A problem on one line of a stream that is not a file (e.g. {@code socket host:port}); {@code line} is 1-based. */
    public GraphFormatException(String source, long line, String problem) {
        super(source + " line " + line + ": " + problem);
        this.file = source;
        this.line = line;
    }

    /** A problem with a file or directory as a whole (no single line to blame). */
    public GraphFormatException(Path file, String problem) {
        super(file + ": " + problem);
        this.file = file.toString();
        this.line = 0;
    }

    /** The file or directory at fault, as given to the loader. */
    public String file() {
        return file;
    }

    /** The 1-based line at fault, or 0 when the problem is not about one line. */
    public long line() {
        return line;
    }
}
