package io.fanout.flink.updates;

import java.time.Duration;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.connector.file.src.FileSource;
import org.apache.flink.core.fs.Path;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * The graph-update line sources, each of parallelism 1 (the updates form one version sequence): a directory
 * watched by a {@link FileSource} (files whose names start with '.' or '_' are skipped until renamed, so write a
 * file under such a name and rename it when complete), or a TCP server's lines (tests). Neither emits watermarks:
 * versions are data until the update reader turns them into its own watermarks.
 */
public final class GraphUpdateSources {
    private GraphUpdateSources() {}

    /**
     * The lines of every file in {@code dir}, present or added later, listed every {@code interval}; the files
     * found by one listing are read in name order ({@link NameOrderSplitAssigner}).
     */
    public static DataStream<UpdateLine> directory(StreamExecutionEnvironment env, java.nio.file.Path dir,
            Duration interval) {
        FileSource<UpdateLine> source = FileSource
                .forBulkFileFormat(new UpdateLineFormat(), new Path(dir.toAbsolutePath().toUri()))
                .monitorContinuously(interval)
                .setSplitAssigner(NameOrderSplitAssigner::new)
                .build();
        return env.fromSource(source, WatermarkStrategy.noWatermarks(), "graph-updates")
                .setParallelism(1).uid("graph-updates");
    }

    /** The lines a TCP server at {@code host:port} sends, until it closes the connection. */
    public static DataStream<UpdateLine> socket(StreamExecutionEnvironment env, String host, int port) {
        return env.socketTextStream(host, port).uid("graph-updates")
                .map(new SocketLine("socket " + host + ":" + port)).returns(TypeInformation.of(UpdateLine.class))
                .setParallelism(1).name("graph-update-lines").uid("graph-update-lines");
    }

    /** A socket line, numbered by the reader (one stream, in order). */
    static final class SocketLine implements MapFunction<String, UpdateLine> {
        private static final long serialVersionUID = 1L;
        private final String source;

        SocketLine(String source) {
            this.source = source;
        }

        @Override
        public UpdateLine map(String text) {
            return new UpdateLine(source, 0, text);
        }
    }
}
