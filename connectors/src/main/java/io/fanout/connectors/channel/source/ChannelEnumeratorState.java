package io.fanout.connectors.channel.source;

import java.util.List;

/**
 * What a {@link ChannelSource}'s enumerator checkpoints: whether its splits were discovered (files
 * listed, registry read) and the splits not assigned yet.
 */
public record ChannelEnumeratorState(boolean discovered, List<ChannelSplit> unassigned) {
    public ChannelEnumeratorState {
        unassigned = List.copyOf(unassigned);
    }

    /** A new job: nothing discovered. */
    public static ChannelEnumeratorState initial() {
        return new ChannelEnumeratorState(false, List.of());
    }
}
