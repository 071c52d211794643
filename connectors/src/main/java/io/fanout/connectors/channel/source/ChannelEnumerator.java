package io.fanout.connectors.channel.source;

import io.fanout.connectors.channel.client.ChannelReader;
import io.fanout.connectors.channel.registry.EndpointInfo;
import io.fanout.connectors.channel.registry.EndpointRegistry;
import io.fanout.connectors.file.SamplesFile;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import javax.annotation.Nullable;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.util.FlinkRuntimeException;

/**
 * Discovers a {@link ChannelSource}'s splits once (lists the files, parses the endpoints, or polls
 * the registry until every endpoint registered) and hands them out one per reader request. Requests
 * that arrive before discovery finished are answered when it does.
 */
final class ChannelEnumerator implements SplitEnumerator<ChannelSplit, ChannelEnumeratorState> {
    private static final long REGISTRY_POLL_MS = 200;

    private final SplitEnumeratorContext<ChannelSplit> context;
    private final ChannelSource source;
    private final ArrayDeque<ChannelSplit> unassigned = new ArrayDeque<>();
    private final Set<Integer> waiting = new LinkedHashSet<>();
    private boolean discovered;
    private long registryDeadline;

    ChannelEnumerator(SplitEnumeratorContext<ChannelSplit> context, ChannelSource source, ChannelEnumeratorState state) {
        this.context = context;
        this.source = source;
        this.discovered = state.discovered();
        this.unassigned.addAll(state.unassigned());
    }

    @Override
    public void start() {
        if (discovered) {
            return;
        }
        switch (source.mode()) {
            case FILES -> {
                for (String input : source.inputs()) {
                    Path p = Path.of(input);
                    try {
                        if (Files.isRegularFile(p)) {
                            unassigned.add(ChannelSplit.file(p.toString(), 0, 0));
                        } else if (Files.isDirectory(p)) {
                            for (Path f : SamplesFile.listFiles(p)) {
                                unassigned.add(ChannelSplit.file(f.toString(), 0, 0));
                            }
                        } else {
                            throw new FlinkRuntimeException("channel source: " + p + " is neither a .samples file nor a directory");
                        }
                    } catch (IOException e) {
                        throw new UncheckedIOException("channel source: cannot list " + p + ": " + e.getMessage(), e);
                    }
                }
                discovered = true;
            }
            case ENDPOINTS -> {
                List<String> inputs = source.inputs();
                for (int i = 0; i < inputs.size(); i++) {
                    InetSocketAddress a = ChannelReader.parseEndpoints(inputs.get(i)).get(0);
                    unassigned.add(ChannelSplit.endpoint(i, a.getHostString(), a.getPort(), null));
                }
                discovered = true;
            }
            case REGISTRY -> {
                registryDeadline = System.currentTimeMillis() + source.connectTimeout().toMillis();
                EndpointRegistry registry = new EndpointRegistry(Path.of(source.registryDir()));
                context.callAsync(registry::readAll, this::onRegistry, 0, REGISTRY_POLL_MS);
            }
        }
    }

    /** Called in the enumerator thread with each registry listing until every endpoint is registered. */
    private void onRegistry(List<EndpointInfo> infos, Throwable error) {
        if (discovered) {
            return;
        }
        if (error != null) {
            throw new FlinkRuntimeException("channel source: cannot read the registry " + source.registryDir() + ": " + error.getMessage(), error);
        }
        int n = infos.isEmpty() ? 0 : infos.get(0).numEndpoints();
        if (n > 0 && infos.size() == n && infos.get(n - 1).index() == n - 1) {
            for (EndpointInfo info : infos) {
                unassigned.add(ChannelSplit.endpoint(info.index(), info.host(), info.port(), null));
            }
            discovered = true;
            List<Integer> readers = new ArrayList<>(waiting);
            waiting.clear();
            for (int subtask : readers) {
                handleSplitRequest(subtask, null);
            }
        } else if (System.currentTimeMillis() > registryDeadline) {
            throw new FlinkRuntimeException("channel source: registry " + source.registryDir() + " holds " + infos.size() + " of "
                    + (n == 0 ? "?" : n) + " endpoints after " + source.connectTimeout());
        }
    }

    @Override
    public void handleSplitRequest(int subtaskId, @Nullable String requesterHostname) {
        if (!discovered) {
            waiting.add(subtaskId);
            return;
        }
        ChannelSplit split = unassigned.poll();
        if (split != null) {
            context.assignSplit(split, subtaskId);
        } else {
            context.signalNoMoreSplits(subtaskId);
        }
    }

    @Override
    public void addSplitsBack(List<ChannelSplit> splits, int subtaskId) {
        // Back in front: a restarted reader resumes them before new work.
        for (int i = splits.size() - 1; i >= 0; i--) {
            unassigned.addFirst(splits.get(i));
        }
    }

    @Override
    public void addReader(int subtaskId) {
        // Readers ask for splits themselves.
    }

    @Override
    public ChannelEnumeratorState snapshotState(long checkpointId) {
        return new ChannelEnumeratorState(discovered, new ArrayList<>(unassigned));
    }

    @Override
    public void close() {}
}
