package io.fanout.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.fanout.graph.GraphFormatException;
import io.fanout.graph.EdgeDirection;
import io.fanout.connectors.testing.Waits;
import io.fanout.testing.SharedData;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The JVM-wide graph cache: one load per (path, direction) however many leases, shared across threads, dropped with
 * the last lease, and never caching a failure.
 *
 * <p>The concurrency tests feed the graph through a named pipe, so the first acquirer is provably still loading
 * (blocked reading the pipe) while the others arrive and wait.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SharedGraphsTest {
    @TempDir
    Path tmp;

    @Test
    void twoLeasesShareOneLoadAndTheLastCloseDropsIt() throws IOException {
        Path cora = SharedData.graph("cora");
        int loads = SharedGraphs.loadCount();
        SharedGraphs.Lease first = SharedGraphs.acquire(cora, EdgeDirection.OUT);
        SharedGraphs.Lease second = SharedGraphs.acquire(cora, EdgeDirection.OUT);
        assertThat(SharedGraphs.loadCount()).isEqualTo(loads + 1);
        assertThat(second.graph()).isSameAs(first.graph());
        assertThat(first.graph().adjacency().numEdges()).isEqualTo(10556);
        GraphStore shared = first.graph();

        first.close();
        first.close(); // harmless: must not release the second lease's hold
        assertThatThrownBy(first::graph).isInstanceOf(IllegalStateException.class);
        try (SharedGraphs.Lease third = SharedGraphs.acquire(cora, EdgeDirection.OUT)) {
            assertThat(SharedGraphs.loadCount()).isEqualTo(loads + 1);
            assertThat(third.graph()).isSameAs(shared);
        }
        assertThat(SharedGraphs.cachedCount()).isEqualTo(1);
        second.close();
        assertThat(SharedGraphs.cachedCount()).isZero();

        try (SharedGraphs.Lease again = SharedGraphs.acquire(cora, EdgeDirection.OUT)) {
            assertThat(SharedGraphs.loadCount()).isEqualTo(loads + 2);
            assertThat(again.graph()).isNotSameAs(shared);
            assertThat(again.graph().adjacency().targets()).isEqualTo(shared.adjacency().targets());
        }
    }

    @Test
    void keyedByCanonicalPathAndDirection() throws IOException {
        Path dir = SharedData.graph("cora_cites");
        Path link = Files.createSymbolicLink(tmp.resolve("cites-link"), dir);
        int loads = SharedGraphs.loadCount();
        try (SharedGraphs.Lease plain = SharedGraphs.acquire(dir, EdgeDirection.OUT);
                SharedGraphs.Lease dotted = SharedGraphs.acquire(dir.resolve("../cora_cites"), EdgeDirection.OUT);
                SharedGraphs.Lease linked = SharedGraphs.acquire(link, EdgeDirection.OUT);
                SharedGraphs.Lease in = SharedGraphs.acquire(dir, EdgeDirection.IN)) {
            assertThat(dotted.graph()).isSameAs(plain.graph());
            assertThat(linked.graph()).isSameAs(plain.graph());
            assertThat(in.graph()).isNotSameAs(plain.graph());
            assertThat(in.graph().adjacency().direction()).isEqualTo(EdgeDirection.IN);
            assertThat(SharedGraphs.loadCount()).isEqualTo(loads + 2); // one per direction
            assertThat(plain.spec().edges()).isEqualTo(dir.toRealPath());
        }
        assertThat(SharedGraphs.cachedCount()).isZero();
    }

    @Test
    void threadsAcquiringTogetherLoadOnce() throws Exception {
        Path pubmed = SharedData.graph("pubmed");
        int threads = 8;
        int loads = SharedGraphs.loadCount();
        CyclicBarrier start = new CyclicBarrier(threads);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        List<Future<SharedGraphs.Lease>> leases = new ArrayList<>();
        try {
            for (int i = 0; i < threads; i++) {
                leases.add(pool.submit(() -> {
                    start.await();
                    return SharedGraphs.acquire(pubmed, EdgeDirection.OUT);
                }));
            }
            GraphStore graph = leases.get(0).get().graph();
            for (Future<SharedGraphs.Lease> lease : leases) {
                assertThat(lease.get().graph()).isSameAs(graph);
            }
            assertThat(SharedGraphs.loadCount()).isEqualTo(loads + 1);
            assertThat(graph.adjacency().numEdges()).isEqualTo(88651);
        } finally {
            for (Future<SharedGraphs.Lease> lease : leases) {
                lease.get().close();
            }
            pool.shutdownNow();
        }
        assertThat(SharedGraphs.cachedCount()).isZero();
    }

    @Test
    void waitersBlockOnTheOneLoadInProgress() throws Exception {
        Path pipe = fifo("edges.tsv");
        int loads = SharedGraphs.loadCount();
        List<Acquirer> acquirers = startWhileLoading(pipe, 5);
        feed(pipe, Files.readAllBytes(SharedData.graph("cora_cites").resolve("edges.tsv")));
        GraphStore graph = null;
        for (Acquirer acquirer : acquirers) {
            acquirer.join();
            assertThat(acquirer.failure).isNull();
            graph = graph == null ? acquirer.lease.graph() : graph;
            assertThat(acquirer.lease.graph()).isSameAs(graph);
        }
        assertThat(graph.adjacency().numEdges()).isEqualTo(5429);
        assertThat(SharedGraphs.loadCount()).isEqualTo(loads + 1);
        for (Acquirer acquirer : acquirers) {
            acquirer.lease.close();
        }
        assertThat(SharedGraphs.cachedCount()).isZero();
    }

    @Test
    void failedLoadReachesEveryWaiterAndIsNotCached() throws Exception {
        Path pipe = fifo("edges.tsv");
        int loads = SharedGraphs.loadCount();
        List<Acquirer> acquirers = startWhileLoading(pipe, 4);
        feed(pipe, "# directed=true columns=src,dst\n0\t1\n1\toops\n".getBytes());
        for (Acquirer acquirer : acquirers) {
            acquirer.join();
            assertThat(acquirer.lease).isNull();
            assertThat(acquirer.failure).isInstanceOf(IOException.class)
                    .hasMessageContaining(pipe.getFileName().toString())
                    .hasMessageContaining("line 3")
                    .hasMessageContaining("non-numeric dst id 'oops'");
        }
        // The loader sees the parse error itself; the waiters see it as the cause.
        assertThat(acquirers.get(0).failure).isInstanceOf(GraphFormatException.class);
        assertThat(acquirers.get(1).failure.getCause()).isInstanceOf(GraphFormatException.class);
        assertThat(SharedGraphs.loadCount()).isEqualTo(loads + 1);
        assertThat(SharedGraphs.cachedCount()).isZero();

        // The next acquire loads again (and this time the input is good).
        Acquirer retry = new Acquirer(pipe);
        retry.start();
        feed(pipe, "# directed=true columns=src,dst\n0\t1\n1\t2\n".getBytes());
        retry.join();
        assertThat(retry.failure).isNull();
        assertThat(retry.lease.graph().adjacency().numEdges()).isEqualTo(2);
        assertThat(SharedGraphs.loadCount()).isEqualTo(loads + 2);
        retry.lease.close();
    }

    /** Starts one loader (blocked reading the pipe), then {@code waiters} more, and returns once all are waiting. */
    private List<Acquirer> startWhileLoading(Path pipe, int waiters) throws Exception {
        List<Acquirer> acquirers = new ArrayList<>();
        Acquirer loader = new Acquirer(pipe);
        loader.start();
        acquirers.add(loader);
        Waits.until("the loader claimed the key", Duration.ofSeconds(30), () -> SharedGraphs.cachedCount() > 0);
        for (int i = 0; i < waiters; i++) {
            Acquirer waiter = new Acquirer(pipe);
            waiter.start();
            acquirers.add(waiter);
        }
        for (Acquirer waiter : acquirers.subList(1, acquirers.size())) {
            Waits.untilState("a waiter parked on the loader's result", Duration.ofSeconds(30), waiter, Thread.State.WAITING);
        }
        assertThat(loader.isAlive()).isTrue();
        return acquirers;
    }

    private Path fifo(String name) throws IOException, InterruptedException {
        Path pipe = tmp.resolve(name);
        Process mkfifo = new ProcessBuilder("mkfifo", pipe.toString()).inheritIO().start();
        assumeTrue(mkfifo.waitFor() == 0, "mkfifo is needed to hold a load open");
        return pipe;
    }

    private static void feed(Path pipe, byte[] content) throws IOException {
        try (OutputStream out = Files.newOutputStream(pipe)) {
            out.write(content);
        }
    }

    /** A thread that acquires a lease and keeps what it got. */
    private static final class Acquirer extends Thread {
        private final Path path;
        volatile SharedGraphs.Lease lease;
        volatile Throwable failure;

        Acquirer(Path path) {
            this.path = path;
            setDaemon(true); // never outlive a failed test blocked on the pipe
        }

        @Override
        public void run() {
            try {
                lease = SharedGraphs.acquire(path, EdgeDirection.OUT);
            } catch (Throwable t) {
                failure = t;
            }
        }
    }
}
