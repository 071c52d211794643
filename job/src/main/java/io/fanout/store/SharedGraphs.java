package io.fanout.store;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * JVM-wide, reference-counted cache of loaded graphs, so every sampler subtask in one TaskManager shares one copy.
 *
 * <p>Keyed by the canonical {@link GraphSpec} (paths resolved, direction, node file, dtype, edge ids). The first acquirer loads the graph in its own thread while concurrent
 * acquirers of the same key wait for it. A failed load is reported to the loader and to every waiter and is not
 * cached: the next acquire loads again. The graph is dropped when its last {@link Lease} closes.
 */
public final class SharedGraphs {
    private static final Object LOCK = new Object();
    private static final Map<GraphSpec, Entry> ENTRIES = new HashMap<>(); // guarded by LOCK
    private static final AtomicInteger LOADS = new AtomicInteger();

    private SharedGraphs() {
    }

    /**
     * Returns a lease on the graph {@code spec} describes, loading it if no lease holds it.
     *
     * @throws IOException if a path does not exist or the load fails (see {@link GraphStore#load})
     */
    public static Lease acquire(GraphSpec spec) throws IOException {
        GraphSpec key = Objects.requireNonNull(spec, "spec").canonical();
        Entry entry;
        boolean loader = false;
        synchronized (LOCK) {
            entry = ENTRIES.get(key);
            if (entry == null) {
                entry = new Entry(key);
                ENTRIES.put(key, entry);
                loader = true;
            }
            entry.refs++;
        }
        if (loader) {
            LOADS.incrementAndGet();
            try {
                GraphStore loaded = GraphStore.load(key);
                entry.graph.complete(loaded);
                return new Lease(entry, loaded);
            } catch (IOException | RuntimeException | Error e) {
                forget(entry); // not cached: the next acquire retries
                entry.graph.completeExceptionally(e);
                throw e;
            }
        }
        try {
            return new Lease(entry, entry.graph.get());
        } catch (InterruptedException e) {
            release(entry);
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while waiting for graph " + key + " to load");
        } catch (ExecutionException e) {
            release(entry);
            Throwable cause = e.getCause();
            if (cause instanceof Error) {
                throw new IOException("loading graph " + key + " failed in another thread: " + cause, cause);
            }
            // A fresh exception per waiter (a shared one would collect everyone's stack traces and suppressions).
            throw new IOException("loading graph " + key + " failed in another thread: " + cause.getMessage(),
                    cause);
        }
    }

    /** A lease on the edges at {@code graph} in {@code direction}, without node file or edge ids. */
    public static Lease acquire(java.nio.file.Path graph, io.fanout.graph.EdgeDirection direction) throws IOException {
        return acquire(GraphSpec.edges(graph, direction));
    }

    /** Number of loads {@link #acquire} has started since the JVM began (successful or not). */
    public static int loadCount() {
        return LOADS.get();
    }

    /** Number of graphs currently held (or being loaded) for at least one lease. */
    public static int cachedCount() {
        synchronized (LOCK) {
            return ENTRIES.size();
        }
    }

    private static void release(Entry entry) {
        synchronized (LOCK) {
            entry.refs--;
            if (entry.refs == 0) {
                forget(entry);
            }
        }
    }

    private static void forget(Entry entry) {
        synchronized (LOCK) {
            ENTRIES.remove(entry.key, entry); // only this entry: a retry may already have put a new one
        }
    }

    /** A hold on one shared graph; close it when the graph is no longer needed (closing twice is harmless). */
    public static final class Lease implements AutoCloseable {
        private final Entry entry;
        private final GraphStore graph;
        private boolean closed; // guarded by LOCK

        private Lease(Entry entry, GraphStore graph) {
            this.entry = entry;
            this.graph = graph;
        }

        /** The shared graph; read-only. */
        public GraphStore graph() {
            synchronized (LOCK) {
                if (closed) {
                    throw new IllegalStateException("lease on " + entry.key + " is closed");
                }
            }
            return graph;
        }

        /** The canonical spec the graph was loaded from. */
        public GraphSpec spec() {
            return entry.key;
        }

        @Override
        public void close() {
            synchronized (LOCK) {
                if (closed) {
                    return;
                }
                closed = true;
                release(entry);
            }
        }

        @Override
        public String toString() {
            return "SharedGraphs.Lease{" + entry.key + "}";
        }
    }

    private static final class Entry {
        final GraphSpec key;
        final CompletableFuture<GraphStore> graph = new CompletableFuture<>();
        int refs; // guarded by LOCK

        Entry(GraphSpec key) {
            this.key = key;
        }
    }
}
