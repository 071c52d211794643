package io.fanout.connectors.channel.source;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.base.source.reader.fetcher.SingleThreadFetcherManager;
import org.apache.flink.connector.base.source.reader.fetcher.SplitFetcher;
import org.apache.flink.connector.base.source.reader.splitreader.SplitReader;

/**
 * File splits share the one fetcher thread (read one after another); each endpoint split gets a fetcher of
 * its own, because reading an endpoint blocks on its socket and endpoints are read side by side.
 */
final class ChannelFetcherManager extends SingleThreadFetcherManager<ChannelRecord, ChannelSplit> {
    ChannelFetcherManager(Supplier<SplitReader<ChannelRecord, ChannelSplit>> splitReaders, Configuration config) {
        super(splitReaders, config);
    }

    @Override
    public void addSplits(List<ChannelSplit> splits) {
        List<ChannelSplit> files = new ArrayList<>();
        for (ChannelSplit s : splits) {
            if (s.kind() == ChannelSplit.Kind.FILE) {
                files.add(s);
            } else {
                SplitFetcher<ChannelRecord, ChannelSplit> fetcher = createSplitFetcher();
                fetcher.addSplits(List.of(s));
                startFetcher(fetcher);
            }
        }
        if (!files.isEmpty()) {
            super.addSplits(files);
        }
    }
}
