package io.fanout.job;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Collection;
import org.apache.flink.api.common.SupportsConcurrentExecutionAttempts;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.sink2.Committer;
import org.apache.flink.api.connector.sink2.CommitterInitContext;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SupportsCommitter;
import org.apache.flink.api.connector.sink2.SupportsWriterState;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.connector.file.sink.FileSink;
import org.apache.flink.connector.file.sink.FileSinkCommittable;
import org.apache.flink.connector.file.sink.writer.FileWriter;
import org.apache.flink.connector.file.sink.writer.FileWriterBucketState;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.streaming.api.connector.sink2.CommittableMessage;
import org.apache.flink.streaming.api.connector.sink2.SupportsPostCommitTopology;
import org.apache.flink.streaming.api.connector.sink2.SupportsPreCommitTopology;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.BoundedOneInput;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;

/**
 * The offline FileSink, unchanged, plus one step after its committers: when every committer has committed its last
 * files (their input ended), it deletes the output's run lock ({@link OutputLock}) if the lock is still this run's.
 *
 * <p>So a job releases its lock itself, on a TaskManager, also when no client waits for it ({@code flink run -d}).
 * The writer and committer keep the FileSink's operators and state: savepoints of the plain FileSink restore.
 */
final class ReleasingFileSink<IN> implements Sink<IN>, SupportsWriterState<IN, FileWriterBucketState>,
        SupportsWriterState.WithCompatibleState, SupportsCommitter<FileSinkCommittable>,
        SupportsPreCommitTopology<FileSinkCommittable, FileSinkCommittable>,
        SupportsPostCommitTopology<FileSinkCommittable>, SupportsConcurrentExecutionAttempts {
    private static final long serialVersionUID = 1L;

    private final FileSink<IN> sink;
    /** The output directory, as the sink writes it (a local path or a URI). */
    private final String directory;

    private ReleasingFileSink(FileSink<IN> sink, String directory) {
        this.sink = sink;
        this.directory = directory;
    }

    /** {@code sink}, writing into {@code directory}, releasing the run lock there after its last commit. */
    static <IN> ReleasingFileSink<IN> of(FileSink<IN> sink, String directory) {
        return new ReleasingFileSink<>(sink, directory);
    }

    @Override
    public FileWriter<IN> createWriter(WriterInitContext context) throws IOException {
        return sink.createWriter(context);
    }

    @Override
    public FileWriter<IN> restoreWriter(WriterInitContext context, Collection<FileWriterBucketState> states)
            throws IOException {
        return sink.restoreWriter(context, states);
    }

    @Override
    public SimpleVersionedSerializer<FileWriterBucketState> getWriterStateSerializer() {
        return sink.getWriterStateSerializer();
    }

    @Override
    public Collection<String> getCompatibleWriterStateNames() {
        return sink.getCompatibleWriterStateNames();
    }

    @Override
    public Committer<FileSinkCommittable> createCommitter(CommitterInitContext context) throws IOException {
        return sink.createCommitter(context);
    }

    @Override
    public SimpleVersionedSerializer<FileSinkCommittable> getCommittableSerializer() {
        return sink.getCommittableSerializer();
    }

    @Override
    public SimpleVersionedSerializer<FileSinkCommittable> getWriteResultSerializer() {
        return sink.getWriteResultSerializer();
    }

    @Override
    public DataStream<CommittableMessage<FileSinkCommittable>> addPreCommitTopology(
            DataStream<CommittableMessage<FileSinkCommittable>> committables) {
        return sink.addPreCommitTopology(committables);
    }

    @Override
    public void addPostCommitTopology(DataStream<CommittableMessage<FileSinkCommittable>> committed) {
        Path lock = localLock(directory);
        if (lock != null) {
            committed.global().transform("release-output-lock", Types.VOID, new Release(lock.toString()))
                    .setParallelism(1).uid("samples-files-release-output-lock");
        }
    }

    /** The lock file of a local output directory (a plain path or a {@code file:} URI); null for another file system. */
    private static Path localLock(String directory) {
        java.net.URI uri = new org.apache.flink.core.fs.Path(directory).toUri();
        return uri.getScheme() == null || uri.getScheme().equals("file")
                ? Path.of(uri.getPath()).resolve(OutputLock.NAME) : null;
    }

    /** Releases the lock of the run the job's parameters name once every committer's input has ended. */
    static final class Release extends AbstractStreamOperator<Void>
            implements OneInputStreamOperator<CommittableMessage<FileSinkCommittable>, Void>, BoundedOneInput {
        private static final long serialVersionUID = 1L;
        private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(ReleasingFileSink.class);
        private final String lock;

        Release(String lock) {
            this.lock = lock;
        }

        @Override
        public void processElement(StreamRecord<CommittableMessage<FileSinkCommittable>> element) {
            // Committed files: nothing to do until the last.
        }

        @Override
        public void endInput() throws IOException {
            String run = getRuntimeContext().getGlobalJobParameters().get(OutputLock.RUN_PARAMETER);
            if (run != null && OutputLock.releaseIfOwned(Path.of(lock), run)) {
                LOG.info("{}: run lock released, every part file committed", lock);
            }
        }
    }
}
