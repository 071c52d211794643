package io.fanout.flink.updates;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Iterator;
import java.util.NoSuchElementException;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.file.src.FileSourceSplit;
import org.apache.flink.connector.file.src.reader.BulkFormat;
import org.apache.flink.connector.file.src.util.CheckpointedPosition;
import org.apache.flink.connector.file.src.util.IteratorResultIterator;
import org.apache.flink.core.fs.FSDataInputStream;

/**
 * Reads an update file for a {@link org.apache.flink.connector.file.src.FileSource} as {@link UpdateLine}s that
 * know their file and line (a text-line format does not say which file a line came from, and errors must), then
 * one end-of-file line. Files are read whole by one reader (not split); a restore skips the lines already read.
 */
public class UpdateLineFormat implements BulkFormat<UpdateLine, FileSourceSplit> {
    private static final long serialVersionUID = 1L;

    @Override
    public BulkFormat.Reader<UpdateLine> createReader(Configuration config, FileSourceSplit split) throws IOException {
        return new Reader(split, 0);
    }

    @Override
    public BulkFormat.Reader<UpdateLine> restoreReader(Configuration config, FileSourceSplit split) throws IOException {
        long skip = split.getReaderPosition().map(CheckpointedPosition::getRecordsAfterOffset).orElse(0L);
        return new Reader(split, skip);
    }

    @Override
    public boolean isSplittable() {
        return false;
    }

    @Override
    public TypeInformation<UpdateLine> getProducedType() {
        return TypeInformation.of(UpdateLine.class);
    }

    /** One file's lines, in one batch. */
    private static final class Reader implements BulkFormat.Reader<UpdateLine> {
        private final String file;
        private final FSDataInputStream stream;
        private final BufferedReader in;
        private final long skipped;
        private boolean returned;

        Reader(FileSourceSplit split, long skip) throws IOException {
            this.file = split.path().toUri().getPath();
            this.stream = split.path().getFileSystem().open(split.path());
            this.in = new BufferedReader(new InputStreamReader(stream, StandardCharsets.UTF_8));
            this.skipped = skip;
            // Records are the lines then the end marker; a restore skips the records already emitted.
            for (long i = 0; i < skip; i++) {
                in.readLine();
            }
        }

        @Override
        public BulkFormat.RecordIterator<UpdateLine> readBatch() {
            if (returned) {
                return null;
            }
            returned = true;
            Iterator<UpdateLine> lines = new Iterator<>() {
                private long line = skipped;
                private boolean ended;
                private UpdateLine next = advance();

                private UpdateLine advance() {
                    if (ended) {
                        return null;
                    }
                    try {
                        String text = in.readLine();
                        if (text == null) {
                            ended = true;
                            return new UpdateLine(file, line + 1, null);
                        }
                        return new UpdateLine(file, ++line, text);
                    } catch (IOException e) {
                        throw new UncheckedIOException("cannot read " + file + " after line " + line, e);
                    }
                }

                @Override
                public boolean hasNext() {
                    return next != null;
                }

                @Override
                public UpdateLine next() {
                    if (next == null) {
                        throw new NoSuchElementException();
                    }
                    UpdateLine out = next;
                    next = advance();
                    return out;
                }
            };
            return new IteratorResultIterator<>(lines, CheckpointedPosition.NO_OFFSET, skipped);
        }

        @Override
        public void close() throws IOException {
            in.close();
        }
    }
}
