package io.fanout.graph;

import java.io.IOException;
import java.io.InputStream;
import java.io.PushbackInputStream;

/**
 * Skips the UTF-8 byte-order mark (EF BB BF) at the start of an input file's text.
 *
 * <p>Windows tools (Notepad, Excel's "CSV UTF-8", PowerShell's {@code Out-File}) write it; Java's UTF-8 decoder keeps
 * it as U+FEFF, so unskipped it turns a {@code #} header line into a data row and a first id into a non-number.
 */
public final class ByteOrderMark {
    /** The mark's bytes in UTF-8. */
    public static final int LENGTH = 3;

    private ByteOrderMark() {}

    /** {@code in}, positioned at the start of a file's text, without its leading mark if it has one. */
    public static InputStream skip(InputStream in) throws IOException {
        PushbackInputStream pushback = new PushbackInputStream(in, LENGTH);
        skip(pushback);
        return pushback;
    }

    /**
     * Reads past a mark at the current position (the start of the text) of {@code in}; anything else read is pushed
     * back. Returns the bytes skipped: {@link #LENGTH} or 0.
     */
    public static int skip(PushbackInputStream in) throws IOException {
        byte[] head = in.readNBytes(LENGTH);
        if (isMark(head, head.length)) {
            return LENGTH;
        }
        in.unread(head);
        return 0;
    }

    /** Whether {@code bytes[0, length)} is the mark. */
    static boolean isMark(byte[] bytes, int length) {
        return length >= LENGTH && (bytes[0] & 0xff) == 0xef && (bytes[1] & 0xff) == 0xbb && (bytes[2] & 0xff) == 0xbf;
    }
}
