package io.fanout.connectors.channel.source;

import io.fanout.connectors.channel.client.ChannelReader;
import io.fanout.connectors.channel.registry.EndpointInfo;
import io.fanout.connectors.channel.registry.EndpointRegistry;
import io.fanout.connectors.file.SamplesFile;
import io.fanout.connectors.message.EncodedMessage;
import io.fanout.connectors.message.MessageKeys;
import io.fanout.connectors.message.SafetensorsCodec;
import io.fanout.connectors.message.TensorMessage;
import io.fanout.connectors.message.Tensor;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import org.apache.flink.api.connector.source.ReaderOutput;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.core.io.InputStatus;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads a {@link ChannelSource}'s splits: file splits one at a time in the task thread (one record
 * per poll, the position checkpointed as a byte offset), endpoint splits all at once, each pulled by
 * its own thread through a {@link ChannelReader} into a small hand-off queue. Duplicates of keys an
 * endpoint split already emitted are dropped here, in the task thread, which alone owns the key sets.
 */
final class ChannelSourceReader implements SourceReader<EncodedMessage, ChannelSplit> {
    private static final Logger LOG = LoggerFactory.getLogger(ChannelSourceReader.class);
    /** Messages pulled from endpoints and not yet emitted (each one still counts as a credit upstream). */
    private static final int HANDOFF_CAPACITY = 32;

    private final SourceReaderContext context;
    private final ChannelSource source;
    private final ArrayDeque<ChannelSplit> queuedFiles = new ArrayDeque<>();
    private final Map<String, Live> live = new LinkedHashMap<>();
    private final BlockingQueue<Item> handoff = new ArrayBlockingQueue<>(HANDOFF_CAPACITY);

    /** The file being read, or null. */
    private ChannelSplit file;
    private SamplesFile.Reader fileReader;
    private long fileRecords;
    private boolean noMoreSplits;
    private volatile CompletableFuture<Void> availability = new CompletableFuture<>();
    private volatile boolean closed;

    /** What an endpoint thread hands over: a message, its end, or its failure. */
    private record Item(Live from, EncodedMessage sample, boolean end, RuntimeException error) {}

    /** The access token for endpoint {@code index}: the source's, else the one in its registry file. */
    private String token(int index) {
        if (!source.token().isEmpty() || source.registryDir() == null) {
            return source.token();
        }
        try {
            return new io.fanout.connectors.channel.registry.EndpointRegistry(java.nio.file.Path.of(source.registryDir()))
                    .read(index).map(i -> i.token() == null ? "" : i.token()).orElse("");
        } catch (java.io.IOException e) {
            return "";
        }
    }

    /** One endpoint split being read: its keys (task thread only), reader and thread. */
    private final class Live {
        final ChannelSplit split;
        final BatchKeySet received;
        final Thread thread;
        volatile ChannelReader reader;

        Live(ChannelSplit split) {
            this.split = split;
            this.received = split.received().copy();
            this.thread = new Thread(this::pull, "fanout-channel-source-" + split.splitId());
            thread.setDaemon(true);
        }

        void pull() {
            try {
                ChannelReader r = ChannelReader.fromEndpoints(List.of(InetSocketAddress.createUnresolved(split.host(), split.port())),
                        ChannelReader.Options.defaults().withPrefetch(source.prefetch()).withConnectTimeout(source.connectTimeout())
                                .withToken(token(split.endpointIndex())));
                reader = r;
                if (closed) {
                    r.close();
                    return;
                }
                while (r.hasNext()) {
                    hand(new Item(this, r.next(), false, null));
                }
                hand(new Item(this, null, true, null));
            } catch (InterruptedException e) {
                // closing
            } catch (RuntimeException e) {
                if (!closed) {
                    try {
                        hand(new Item(this, null, false, e));
                    } catch (InterruptedException ignored) {
                        // closing
                    }
                }
            } finally {
                ChannelReader r = reader;
                if (r != null) {
                    r.close();
                }
            }
        }

        void close() {
            ChannelReader r = reader;
            if (r != null) {
                r.close();
            }
            thread.interrupt();
        }
    }

    ChannelSourceReader(SourceReaderContext context, ChannelSource source) {
        this.context = context;
        this.source = source;
    }

    private void hand(Item item) throws InterruptedException {
        handoff.put(item);
        availability.complete(null);
    }

    @Override
    public void start() {
        // Restored splits arrive through addSplits before start; ask only if there are none.
        if (queuedFiles.isEmpty() && live.isEmpty()) {
            context.sendSplitRequest();
        }
    }

    @Override
    public InputStatus pollNext(ReaderOutput<EncodedMessage> output) throws IOException {
        Item item = handoff.poll();
        if (item != null) {
            return fromEndpoint(item, output);
        }
        if (file != null || openNextFile()) {
            byte[] blob;
            long at = fileReader.offset();
            try {
                blob = fileReader.hasNext() ? fileReader.next() : null;
            } catch (UncheckedIOException e) {
                throw e.getCause();
            }
            if (blob == null) {
                finishFile();
            } else {
                output.collect(decodeKeys(blob, file.path(), at));
                fileRecords++;
            }
            return InputStatus.MORE_AVAILABLE;
        }
        return idleStatus();
    }

    private InputStatus fromEndpoint(Item item, ReaderOutput<EncodedMessage> output) {
        Live from = item.from();
        if (item.error() != null) {
            throw new RuntimeException("channel source: " + from.split.splitId() + " (" + from.split.host() + ":" + from.split.port()
                    + ") failed: " + item.error().getMessage(), item.error());
        }
        if (item.end()) {
            live.remove(from.split.splitId());
            LOG.info("channel source: {} ended after {} messages", from.split.splitId(), from.received.size());
            return InputStatus.MORE_AVAILABLE;
        }
        EncodedMessage s = item.sample();
        if (from.received.add(s.epoch, s.batchId)) {
            output.collect(s);
        } else {
            LOG.debug("channel source: {} dropped duplicate epoch {} batch {}", from.split.splitId(), s.epoch, s.batchId);
        }
        return InputStatus.MORE_AVAILABLE;
    }

    /** Reads the keys a blob carries ({@code #META.epoch/batch_id/num_batches}); errors name file and byte. */
    static EncodedMessage decodeKeys(byte[] blob, String path, long offset) throws IOException {
        try {
            TensorMessage m = SafetensorsCodec.decode(blob);
            return new EncodedMessage(meta(m, MessageKeys.META_EPOCH), meta(m, MessageKeys.META_BATCH_ID), meta(m, MessageKeys.META_NUM_BATCHES), blob);
        } catch (IllegalArgumentException e) {
            throw new IOException(path + ": record at byte " + offset + ": " + e.getMessage(), e);
        }
    }

    private static int meta(TensorMessage m, String key) {
        Tensor t = m.get(key);
        if (t == null || t.numElements() != 1) {
            throw new IllegalArgumentException("message has no one-element " + key + " tensor");
        }
        return Math.toIntExact(t.asLongArray()[0]);
    }

    private boolean openNextFile() throws IOException {
        ChannelSplit next = queuedFiles.poll();
        if (next == null) {
            return false;
        }
        file = next;
        fileRecords = next.records();
        fileReader = SamplesFile.open(Path.of(next.path()), next.byteOffset());
        return true;
    }

    private void finishFile() throws IOException {
        LOG.info("channel source: {} done, {} records", file.path(), fileRecords);
        fileReader.close();
        fileReader = null;
        file = null;
        if (queuedFiles.isEmpty() && !noMoreSplits) {
            context.sendSplitRequest();
        }
    }

    private InputStatus idleStatus() {
        if (noMoreSplits && live.isEmpty() && queuedFiles.isEmpty() && handoff.isEmpty()) {
            return InputStatus.END_OF_INPUT;
        }
        availability = new CompletableFuture<>();
        if (!handoff.isEmpty()) { // an endpoint thread handed over between our poll and the new future
            availability.complete(null);
        }
        return InputStatus.NOTHING_AVAILABLE;
    }

    @Override
    public List<ChannelSplit> snapshotState(long checkpointId) {
        List<ChannelSplit> state = new ArrayList<>();
        if (file != null) {
            state.add(file.withFilePosition(fileReader.offset(), fileRecords));
        }
        state.addAll(queuedFiles);
        for (Live l : live.values()) {
            state.add(l.split.withEndpoint(l.split.host(), l.split.port(), l.received.copy()));
        }
        return state;
    }

    @Override
    public CompletableFuture<Void> isAvailable() {
        return availability;
    }

    @Override
    public void addSplits(List<ChannelSplit> splits) {
        boolean askMore = false;
        for (ChannelSplit split : splits) {
            if (split.kind() == ChannelSplit.Kind.FILE) {
                queuedFiles.add(split);
            } else {
                ChannelSplit resolved = resolve(split);
                if (resolved == null) {
                    continue;
                }
                Live l = new Live(resolved);
                live.put(resolved.splitId(), l);
                l.thread.start();
                askMore = true; // endpoints are read side by side: take the next split too
            }
        }
        if (askMore && !noMoreSplits) {
            context.sendSplitRequest();
        }
        availability.complete(null);
    }

    /** With a registry: the endpoint's current address, or null if it is finished (nothing left to read). */
    private ChannelSplit resolve(ChannelSplit split) {
        String dir = source.registryDir();
        if (dir == null) {
            return split;
        }
        try {
            Optional<EndpointInfo> info = new EndpointRegistry(Path.of(dir)).read(split.endpointIndex());
            if (info.isEmpty()) {
                return split;
            }
            if (info.get().state() == EndpointInfo.State.FINISHED) {
                // Finished = every message was delivered to some client: none is left for us.
                LOG.info("channel source: {} is finished in the registry; nothing left to read", split.splitId());
                return null;
            }
            return split.withEndpoint(info.get().host(), info.get().port(), split.received());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void notifyNoMoreSplits() {
        noMoreSplits = true;
        availability.complete(null);
    }

    @Override
    public void close() throws Exception {
        closed = true;
        for (Live l : live.values()) {
            l.close();
        }
        if (fileReader != null) {
            fileReader.close();
        }
    }
}
