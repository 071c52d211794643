package io.fanout.connectors.channel.options;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.util.InstantiationUtil;
import org.junit.jupiter.api.Test;

class ChannelSinkOptionsTest {

    @Test
    void defaultsMatchTheDocumentedOptions() {
        Configuration c = new Configuration();
        c.set(ChannelOptions.REGISTRY, "/tmp/reg");
        ChannelSinkOptions o = ChannelSinkOptions.fromConfiguration(c);
        assertThat(o.registryDir()).isEqualTo("/tmp/reg");
        assertThat(o.bindHost()).isEqualTo("127.0.0.1");
        assertThat(o.port()).isZero();
        assertThat(o.capacity()).isEqualTo(64);
        assertThat(o.bufferBytes()).isEqualTo(256L << 20);
        assertThat(o.linger()).isEqualTo(Duration.ofSeconds(10));
        assertThat(o.maxFrameBytes()).isEqualTo(256 << 20);
        assertThat(o.heartbeatInterval()).isEqualTo(Duration.ofSeconds(5));
    }

    @Test
    void parsesStringValuesAsFlinkDoes() throws Exception {
        Configuration c = Configuration.fromMap(java.util.Map.of("fanout.channel.registry", "r", "fanout.channel.capacity", "8",
                "fanout.channel.buffer-bytes", "1mb", "fanout.channel.linger", "250 ms", "fanout.channel.port", "7000",
                "fanout.channel.max-frame-bytes", "64kb", "fanout.channel.bind-host", "0.0.0.0"));
        ChannelSinkOptions o = ChannelSinkOptions.fromConfiguration(c);
        assertThat(o.capacity()).isEqualTo(8);
        assertThat(o.bufferBytes()).isEqualTo(1 << 20);
        assertThat(o.linger()).isEqualTo(Duration.ofMillis(250));
        assertThat(o.port()).isEqualTo(7000);
        assertThat(o.maxFrameBytes()).isEqualTo(64 << 10);
        assertThat(o.bindHost()).isEqualTo("0.0.0.0");
        assertThat(InstantiationUtil.clone(o)).as("serializable with the sink").isEqualTo(o);
    }

    @Test
    void invalidValuesNameTheOptionAndValue() {
        Configuration none = new Configuration();
        assertThatThrownBy(() -> ChannelSinkOptions.fromConfiguration(none)).hasMessageContaining("fanout.channel.registry is required");
        Configuration c = new Configuration();
        c.set(ChannelOptions.REGISTRY, "r");
        c.set(ChannelOptions.CAPACITY, 0);
        assertThatThrownBy(() -> ChannelSinkOptions.fromConfiguration(c)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("fanout.channel.capacity: 0");
        c.set(ChannelOptions.CAPACITY, 4);
        c.set(ChannelOptions.PORT, 70000);
        assertThatThrownBy(() -> ChannelSinkOptions.fromConfiguration(c)).hasMessageContaining("fanout.channel.port: 70000");
        c.set(ChannelOptions.PORT, 0);
        c.set(ChannelOptions.MAX_FRAME_BYTES, MemorySize.parse("8b"));
        assertThatThrownBy(() -> ChannelSinkOptions.fromConfiguration(c)).hasMessageContaining("fanout.channel.max-frame-bytes: 8 bytes");
        c.set(ChannelOptions.MAX_FRAME_BYTES, MemorySize.parse("1mb"));
        c.set(ChannelOptions.BUFFER_BYTES, MemorySize.ZERO);
        assertThatThrownBy(() -> ChannelSinkOptions.fromConfiguration(c)).hasMessageContaining("fanout.channel.buffer-bytes");
        assertThatThrownBy(() -> ChannelSinkOptions.builder("r").linger(Duration.ofSeconds(-1)).build())
                .hasMessageContaining("fanout.channel.linger: PT-1S");
        assertThatThrownBy(() -> ChannelSinkOptions.builder("r").heartbeatInterval(Duration.ZERO).build())
                .hasMessageContaining("fanout.channel.heartbeat-interval: PT0S");
    }
}
