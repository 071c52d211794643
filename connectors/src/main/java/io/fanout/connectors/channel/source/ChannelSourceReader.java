package io.fanout.connectors.channel.source;

import io.fanout.connectors.message.EncodedMessage;
import java.io.IOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.connector.base.source.reader.SingleThreadMultiplexSourceReaderBase;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads a {@link ChannelSource}'s splits on flink-connector-base's reader framework: {@link FileSplitReader}
 * for files (checkpointed byte offsets), an {@link EndpointSplitReader} per live endpoint. Messages from an
 * endpoint are acknowledged to it only in {@link #notifyCheckpointComplete} of a checkpoint that covers
 * them (as the Kafka source commits offsets), so after a failure the endpoint still holds, and sends
 * again to the resumed session, everything emitted after that checkpoint: exactly once together with the
 * checkpointed keys, which drop the copies of what the checkpoint already holds.
 */
final class ChannelSourceReader
        extends SingleThreadMultiplexSourceReaderBase<ChannelRecord, EncodedMessage, ChannelSplit, ChannelSplitState> {
    private static final Logger LOG = LoggerFactory.getLogger(ChannelSourceReader.class);

    private final Map<String, EndpointSession> sessions;
    /** Seqs to acknowledge per split, by the checkpoint that covers them; task thread only. */
    private final TreeMap<Long, Map<String, List<long[]>>> toAcknowledge = new TreeMap<>();
    /** The checkpoint being snapshotted (toSplitType files the delivered seqs under it), or -1. */
    private long snapshotting = -1;
    private boolean noMoreSplits;
    private boolean started;
    private boolean restoredEndpoints;
    private final boolean acknowledgeOnCheckpoint;

    ChannelSourceReader(SourceReaderContext context, ChannelSource source) {
        this(context, source, new ConcurrentHashMap<>());
    }

    private ChannelSourceReader(SourceReaderContext context, ChannelSource source, Map<String, EndpointSession> sessions) {
        super(new ChannelFetcherManager(() -> source.mode() == ChannelSource.Mode.FILES
                        ? new FileSplitReader() : new EndpointSplitReader(source, sessions), context.getConfiguration()),
                new ChannelRecordEmitter(), context.getConfiguration(), context);
        this.sessions = sessions;
        this.acknowledgeOnCheckpoint = source.acknowledgeOnCheckpoint();
    }

    @Override
    public void start() {
        // Restored splits arrive through addSplits before start, before this reader is registered with the
        // enumerator: a request sent then fails there. So ask here, if there are none or they are endpoints
        // (read side by side: take the next one too).
        started = true;
        if (getNumberOfCurrentlyAssignedSplits() == 0 || restoredEndpoints) {
            context.sendSplitRequest();
        }
    }

    @Override
    public void addSplits(List<ChannelSplit> splits) {
        super.addSplits(splits);
        boolean endpoints = splits.stream().anyMatch(s -> s.kind() == ChannelSplit.Kind.ENDPOINT);
        if (!started) {
            restoredEndpoints |= endpoints;
        } else if (endpoints && !noMoreSplits) {
            context.sendSplitRequest(); // endpoints are read side by side: take the next one too
        }
    }

    @Override
    public void notifyNoMoreSplits() {
        noMoreSplits = true;
        super.notifyNoMoreSplits();
    }

    @Override
    protected void onSplitFinished(Map<String, ChannelSplitState> finished) {
        boolean files = false;
        for (ChannelSplitState s : finished.values()) {
            LOG.info("channel source: {} done{}", s.split.splitId(), s.isFile() ? ", " + s.records + " records" : "");
            files |= s.isFile();
        }
        if (files && !noMoreSplits && getNumberOfCurrentlyAssignedSplits() == 0) {
            context.sendSplitRequest();
        }
    }

    @Override
    protected ChannelSplitState initializedState(ChannelSplit split) {
        return new ChannelSplitState(split);
    }

    @Override
    public List<ChannelSplit> snapshotState(long checkpointId) {
        snapshotting = checkpointId;
        try {
            return super.snapshotState(checkpointId);
        } finally {
            snapshotting = -1;
        }
    }

    @Override
    protected ChannelSplit toSplitType(String splitId, ChannelSplitState state) {
        if (state.isFile()) {
            return state.toSplit(0);
        }
        if (snapshotting >= 0) {
            long[] delivered = state.takeDelivered();
            if (delivered.length > 0 && acknowledgeOnCheckpoint) {
                toAcknowledge.computeIfAbsent(snapshotting, id -> new HashMap<>())
                        .computeIfAbsent(splitId, id -> new java.util.ArrayList<>()).add(delivered);
            }
        }
        EndpointSession session = sessions.get(splitId);
        return state.toSplit(session != null ? session.id() : state.split.session());
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) throws Exception {
        Map<Long, Map<String, List<long[]>>> covered = toAcknowledge.headMap(checkpointId, true);
        for (Map<String, List<long[]>> bySplit : covered.values()) {
            for (Map.Entry<String, List<long[]>> e : bySplit.entrySet()) {
                EndpointSession session = sessions.get(e.getKey());
                if (session == null) {
                    continue; // its stream ended: everything was acknowledged already
                }
                try {
                    for (long[] seqs : e.getValue()) {
                        session.acknowledge(seqs);
                    }
                } catch (IOException ex) {
                    // Not acknowledged = sent again after the restore that follows, and dropped as a copy then.
                    LOG.warn("channel source: could not acknowledge to {}: {}", session.describe(), ex.toString());
                }
            }
        }
        covered.clear();
        super.notifyCheckpointComplete(checkpointId);
    }

    @Override
    public void close() throws Exception {
        for (EndpointSession s : sessions.values()) {
            s.close(); // breaks blocked reads, so the fetchers stop at once
        }
        super.close();
    }
}
