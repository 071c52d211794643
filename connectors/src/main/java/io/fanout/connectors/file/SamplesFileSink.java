package io.fanout.connectors.file;

import io.fanout.connectors.message.EncodedMessage;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.connector.file.sink.FileSink;
import org.apache.flink.core.fs.Path;
import org.apache.flink.streaming.api.functions.sink.filesystem.OutputFileConfig;
import org.apache.flink.streaming.api.functions.sink.filesystem.bucketassigners.BasePathBucketAssigner;
import org.apache.flink.streaming.api.functions.sink.filesystem.rollingpolicies.DefaultRollingPolicy;

/** The offline output: Flink's exactly-once FileSink writing {@code part-*.samples} files. */
public final class SamplesFileSink {
    /** Suffix of every finished part file. */
    public static final String SUFFIX = SamplesFile.EXTENSION;

    private SamplesFileSink() {}

    /**
     * A FileSink into {@code directory} (any Flink file system URI or local path). Part files become
     * visible (lose their in-progress name) when a checkpoint or the end of input commits them.
     */
    public static FileSink<EncodedMessage> create(String directory) {
        return FileSink.forRowFormat(new Path(directory), new SamplesFileEncoder())
                .withBucketAssigner(new BasePathBucketAssigner<>())
                .withOutputFileConfig(OutputFileConfig.builder().withPartPrefix("part").withPartSuffix(SUFFIX).build())
                .withRollingPolicy(DefaultRollingPolicy.builder()
                        .withMaxPartSize(MemorySize.ofMebiBytes(256))
                        .build())
                .build();
    }
}
