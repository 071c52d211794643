package io.fanout.connectors.channel.registry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EndpointRegistryTest {
    @TempDir
    Path dir;

    @Test
    void writesTheSpecFileFormatAndReadsItBack() throws IOException {
        EndpointRegistry r = new EndpointRegistry(dir.resolve("reg"));
        EndpointInfo info = new EndpointInfo(2, 0, 2, "127.0.0.1", 40215, EndpointInfo.State.SERVING, null, "tok");
        r.write(info);
        assertThat(Files.readString(dir.resolve("reg/endpoint-0.json"))).isEqualTo("{\"version\":2,\"index\":0,\"num_endpoints\":2,"
                + "\"host\":\"127.0.0.1\",\"port\":40215,\"state\":\"serving\",\"token\":\"tok\"}");
        // The files hold the access token: owner-only.
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(dir.resolve("reg")))).isEqualTo("rwx------");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(dir.resolve("reg/endpoint-0.json"))))
                .isEqualTo("rw-------");
        assertThat(r.read(0)).contains(info);
        r.write(info.withState(EndpointInfo.State.FINISHED));
        assertThat(r.read(0).orElseThrow().state()).isEqualTo(EndpointInfo.State.FINISHED);
        assertThat(r.read(1)).isEmpty();
        try (Stream<Path> files = Files.list(dir.resolve("reg"))) {
            assertThat(files.map(p -> p.getFileName().toString())).as("no temp files left").containsExactly("endpoint-0.json");
        }
    }

    @Test
    void readAllSortsByIndexAndIgnoresUnknownFields() throws IOException {
        EndpointRegistry r = new EndpointRegistry(dir);
        r.write(new EndpointInfo(1, 1, 2, "h", 2, EndpointInfo.State.SERVING, "job", null));
        Files.writeString(dir.resolve("endpoint-0.json"),
                "{\"version\":1,\"index\":0,\"num_endpoints\":2,\"host\":\"h\",\"port\":1,\"state\":\"finished\",\"future\":[1]}");
        Files.writeString(dir.resolve("notes.txt"), "ignored");
        assertThat(r.readAll()).extracting(EndpointInfo::index).containsExactly(0, 1);
        assertThat(r.readAll().get(1).jobId()).isEqualTo("job");
        assertThat(new EndpointRegistry(dir.resolve("missing")).readAll()).isEmpty();
    }

    @Test
    void invalidFilesAreReportedWithTheirPath() throws IOException {
        Files.write(dir.resolve("endpoint-3.json"), "{\"index\":3,".getBytes(StandardCharsets.UTF_8));
        assertThatThrownBy(() -> new EndpointRegistry(dir).read(3)).isInstanceOf(IOException.class).hasMessageContaining("endpoint-3.json");
        Files.writeString(dir.resolve("endpoint-4.json"),
                "{\"version\":1,\"index\":4,\"num_endpoints\":2,\"host\":\"h\",\"port\":1,\"state\":\"serving\"}");
        assertThatThrownBy(() -> new EndpointRegistry(dir).read(4)).isInstanceOf(IOException.class).hasMessageContaining("endpoint-4.json");
        Files.writeString(dir.resolve("endpoint-5.json"),
                "{\"version\":1,\"index\":5,\"num_endpoints\":9,\"host\":\"h\",\"port\":1,\"state\":\"paused\"}");
        assertThatThrownBy(() -> new EndpointRegistry(dir).read(5)).isInstanceOf(IOException.class).hasMessageContaining("paused");
    }
}
