package io.fanout.job;

import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.flink.metrics.Metric;
import org.apache.flink.metrics.MetricConfig;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.reporter.MetricReporter;
import org.apache.flink.metrics.reporter.MetricReporterFactory;

/**
 * A Flink metric reporter for tests: keeps every metric of the channel sink's {@code channel} group
 * and the job's restart and checkpoint counts.
 */
public final class ChannelMetricsProbe implements MetricReporter {
    /** Metric identifier (scope + name) to metric. */
    static final Map<String, Metric> METRICS = new ConcurrentHashMap<>();
    private static final java.util.Set<String> JOB_METRICS = java.util.Set.of("numRestarts", "numberOfFailedCheckpoints",
            "numberOfCompletedCheckpoints");

    @Override
    public void open(MetricConfig config) {}

    @Override
    public void close() {}

    @Override
    public void notifyOfAddedMetric(Metric metric, String name, MetricGroup group) {
        String id = group.getMetricIdentifier(name);
        if (id.contains(".channel.") || JOB_METRICS.contains(name)) {
            METRICS.put(id, metric);
        }
    }

    @Override
    public void notifyOfRemovedMetric(Metric metric, String name, MetricGroup group) {}

    /** Found by ServiceLoader; used when {@code metrics.reporter.<name>.factory.class} names it. */
    public static final class Factory implements MetricReporterFactory {
        @Override
        public MetricReporter createMetricReporter(Properties properties) {
            return new ChannelMetricsProbe();
        }
    }
}
