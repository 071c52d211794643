package io.fanout.connectors.channel.source;

import static org.assertj.core.api.Assertions.assertThat;

import io.fanout.connectors.channel.endpoint.ChannelEndpoint;
import io.fanout.connectors.channel.options.ChannelSinkOptions;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.connector.testutils.source.reader.TestingSplitEnumeratorContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The channel source's enumerator driven with Flink's TestingSplitEnumeratorContext and a real endpoint registry. */
@Timeout(60)
class ChannelEnumeratorTest {
    @TempDir
    Path dir;

    @Test
    void requestsBeforeTheRegistryIsCompleteAreAnsweredOnceEveryEndpointRegistered() throws Exception {
        Path registry = dir.resolve("registry");
        ChannelSinkOptions options = ChannelSinkOptions.builder(registry.toString()).linger(Duration.ofMillis(100)).build();
        TestingSplitEnumeratorContext<ChannelSplit> ctx = new TestingSplitEnumeratorContext<>(2);
        ctx.registerReader(0, "localhost");
        ctx.registerReader(1, "localhost");
        ChannelSource source = ChannelSource.registry(registry.toString());
        SplitEnumerator<ChannelSplit, ChannelEnumeratorState> enumerator = source.createEnumerator(ctx);
        enumerator.start();
        enumerator.handleSplitRequest(1, "localhost");
        try (ChannelEndpoint e0 = new ChannelEndpoint(options, 0, 2, "producer")) {
            poll(ctx);
            assertThat(ctx.getSplitAssignments()).isEmpty(); // one of two endpoints registered: the request waits
            try (ChannelEndpoint e1 = new ChannelEndpoint(options, 1, 2, "producer")) {
                poll(ctx);
                assertThat(ctx.getSplitAssignments().get(1).getAssignedSplits())
                        .containsExactly(ChannelSplit.endpoint(0, "127.0.0.1", e0.address().getPort(), null));
                assertThat(enumerator.snapshotState(1).unassigned())
                        .containsExactly(ChannelSplit.endpoint(1, "127.0.0.1", e1.address().getPort(), null));

                // reader 1 fails before a checkpoint: its split goes back in front and goes to the next request
                enumerator.addSplitsBack(ctx.getSplitAssignments().get(1).getAssignedSplits(), 1);
                enumerator.handleSplitRequest(0, "localhost");
                enumerator.handleSplitRequest(0, "localhost");
                enumerator.handleSplitRequest(0, "localhost");
                assertThat(ctx.getSplitAssignments().get(0).getAssignedSplits()).extracting(ChannelSplit::endpointIndex).containsExactly(0, 1);
                assertThat(ctx.getSplitAssignments().get(0).hasReceivedNoMoreSplitsSignal()).isTrue();
                assertThat(ctx.getSplitAssignments().get(1).hasReceivedNoMoreSplitsSignal()).isFalse();
            }
        }
    }

    /** Runs the enumerator's registry poll and its answer in the coordinator thread, as the context's timer would. */
    private static void poll(TestingSplitEnumeratorContext<ChannelSplit> ctx) {
        ctx.getExecutorService().triggerPeriodicScheduledTasks();
        ctx.triggerAllActions();
    }
}
