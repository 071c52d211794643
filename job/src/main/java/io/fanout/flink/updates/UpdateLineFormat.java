package io.fanout.flink.updates;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
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
 * one end-of-file line. A file is read whole into memory at once (keep update files small) by one reader, not
 * split; a restore skips the lines already read.
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
            this.in = new BufferedReader(new InputStreamReader(io.fanout.graph.ByteOrderMark.skip(stream),
                    StandardCharsets.UTF_8));
            this.skipped = skip;
            // Records are the lines then the end marker; a restore skips the records already emitted.
            for (long i = 0; i < skip; i++) {
                in.readLine();
            }
        }

        @Override
        public BulkFormat.RecordIterator<UpdateLine> readBatch() throws IOException {
            if (returned) {
                return null;
            }
            returned = true;
            // Read whole here, in the fetcher thread: the records are consumed by the task thread, possibly after
            // this reader is closed, so the iterator must not read the stream.
            List<UpdateLine> lines = new ArrayList<>();
            long line = skipped;
            try {
                for (String text; (text = in.readLine()) != null; ) {
                    lines.add(new UpdateLine(file, ++line, text));
                }
            } catch (IOException e) {
                throw new IOException("cannot read " + file + " after line " + line + ": " + e, e);
            }
            lines.add(new UpdateLine(file, line + 1, null));
            return new IteratorResultIterator<>(lines.iterator(), CheckpointedPosition.NO_OFFSET, skipped);
        }

        @Override
        public void close() throws IOException {
            in.close();
        }
    }
}
