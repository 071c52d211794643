package io.fanout.connectors.channel.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.connectors.channel.client.ChannelReader;
import io.fanout.connectors.channel.endpoint.ChannelEndpoint;
import io.fanout.connectors.channel.registry.EndpointRegistry;
import io.fanout.connectors.channel.options.ChannelSinkOptions;
import io.fanout.connectors.message.EncodedMessage;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The channel over TLS with real sockets and certificates made by keytool for the test. */
@Timeout(120)
class ChannelTlsTest {
    @TempDir
    static Path certDir;
    static TestCertificates certs;
    static TestCertificates otherCa;

    @TempDir
    Path registryDir;

    @BeforeAll
    static void makeCertificates() throws Exception {
        certs = TestCertificates.create(certDir.resolve("good"), "Fanout Test CA");
        otherCa = TestCertificates.create(certDir.resolve("other"), "Some Other CA");
    }

    private ChannelSinkOptions tlsOptions() {
        return ChannelSinkOptions.builder(registryDir.toString()).capacity(8).linger(Duration.ofSeconds(1))
                .tls(certs.chain.toString(), certs.key.toString()).build();
    }

    static EncodedMessage sample(int batchId) {
        byte[] payload = new byte[1000 + batchId * 37];
        Arrays.fill(payload, (byte) batchId);
        return new EncodedMessage(0, batchId, 100, payload);
    }

    private static CompletableFuture<Void> produce(ChannelEndpoint e, int n) {
        return CompletableFuture.runAsync(() -> {
            try {
                for (int i = 0; i < n; i++) {
                    e.put(sample(i));
                }
                e.advanceWatermark(0);
                e.finishAndDrain();
            } catch (Exception ex) {
                throw new RuntimeException(ex);
            }
        });
    }

    private static List<EncodedMessage> readAll(ChannelReader r) {
        List<EncodedMessage> out = new ArrayList<>();
        while (r.hasNext()) {
            out.add(r.next());
        }
        return out;
    }

    private static void assertEveryMessage(List<EncodedMessage> got, int n) {
        assertThat(got).hasSize(n);
        got.sort((a, b) -> Integer.compare(a.batchId, b.batchId));
        for (int i = 0; i < n; i++) {
            EncodedMessage want = sample(i);
            assertThat(got.get(i).batchId).isEqualTo(i);
            assertThat(got.get(i).epoch).isEqualTo(0);
            assertThat(got.get(i).payload).isEqualTo(want.payload);
        }
    }

    private static ChannelReader.Options readerOptions() {
        return ChannelReader.Options.defaults().withConnectTimeout(Duration.ofSeconds(10)).withReconnectTimeout(Duration.ofSeconds(2));
    }

    @Test
    void readerTrustingTheCaReadsEveryMessageAndTheRegistrySaysTls() throws Exception {
        try (ChannelEndpoint e = new ChannelEndpoint(tlsOptions(), 0, 1, null)) {
            assertThat(e.info().servesTls()).isTrue();
            String json = Files.readString(new EndpointRegistry(registryDir).fileOf(0), StandardCharsets.UTF_8);
            assertThat(json).contains("\"tls\":true");
            CompletableFuture<Void> p = produce(e, 60);
            try (ChannelReader r = ChannelReader.fromRegistry(registryDir, readerOptions().tlsCa(certs.ca))) {
                assertEveryMessage(readAll(r), 60);
            }
            p.get(20, TimeUnit.SECONDS);
        }
    }

    @Test
    void plainEndpointsLeaveTlsOutOfTheRegistry() throws Exception {
        ChannelSinkOptions plain = ChannelSinkOptions.builder(registryDir.toString()).build();
        try (ChannelEndpoint e = new ChannelEndpoint(plain, 0, 1, null)) {
            assertThat(e.info().servesTls()).isFalse();
            assertThat(Files.readString(new EndpointRegistry(registryDir).fileOf(0))).doesNotContain("tls");
        }
    }

    @Test
    void readerWithAnotherCaIsRefusedAndTheEndpointServesTheNextGoodClient() throws Exception {
        try (ChannelEndpoint e = new ChannelEndpoint(tlsOptions(), 0, 1, null)) {
            try (ChannelReader bad = ChannelReader.fromRegistry(registryDir, readerOptions().tlsCa(otherCa.ca))) {
                assertThatThrownBy(bad::hasNext).isInstanceOf(UncheckedIOException.class)
                        .hasMessageContaining("endpoint 0")
                        .hasMessageContaining("TLS handshake failed")
                        .hasMessageContaining(otherCa.ca.toString());
            }
            assertThat(e.isListening()).isTrue();
            CompletableFuture<Void> p = produce(e, 25);
            try (ChannelReader good = ChannelReader.fromRegistry(registryDir, readerOptions().tlsCa(certs.ca))) {
                assertEveryMessage(readAll(good), 25);
            }
            p.get(20, TimeUnit.SECONDS);
        }
    }

    @Test
    void readerWithoutCaIsToldToPassOneAndPlainClientsDoNotHurtTheEndpoint() throws Exception {
        try (ChannelEndpoint e = new ChannelEndpoint(tlsOptions(), 0, 1, null)) {
            try (ChannelReader noCa = ChannelReader.fromRegistry(registryDir, readerOptions())) {
                assertThatThrownBy(noCa::hasNext).isInstanceOf(UncheckedIOException.class)
                        .hasMessageContaining("endpoint 0")
                        .hasMessageContaining("serves TLS")
                        .hasMessageContaining("tlsCa");
            }
            // Without a registry a plain reader speaks HELLO to the TLS socket: refused, not hung.
            String list = e.info().host() + ":" + e.info().port();
            try (ChannelReader plain = ChannelReader.fromEndpoints(ChannelReader.parseEndpoints(list),
                    readerOptions().withToken(e.info().token()))) {
                assertThatThrownBy(plain::hasNext).isInstanceOf(UncheckedIOException.class).hasMessageContaining("tlsCa");
            }
            CompletableFuture<Void> p = produce(e, 10);
            try (ChannelReader good = ChannelReader.fromEndpoints(ChannelReader.parseEndpoints(list),
                    readerOptions().withToken(e.info().token()).tlsCa(certs.ca))) {
                assertEveryMessage(readAll(good), 10);
            }
            p.get(20, TimeUnit.SECONDS);
        }
    }

    @Test
    void readerWithCaRefusesAPlainEndpoint() throws Exception {
        ChannelSinkOptions plain = ChannelSinkOptions.builder(registryDir.toString()).build();
        try (ChannelEndpoint e = new ChannelEndpoint(plain, 0, 1, null);
                ChannelReader r = ChannelReader.fromRegistry(registryDir, readerOptions().tlsCa(certs.ca))) {
            assertThatThrownBy(r::hasNext).isInstanceOf(UncheckedIOException.class)
                    .hasMessageContaining("serves plain TCP")
                    .hasMessageContaining("refusing");
            assertThat(e.delivered()).isZero();
        }
    }

    @Test
    void badTlsOptionsAreRejectedUpFrontNamingTheOption() throws Exception {
        String reg = registryDir.toString();
        assertThatThrownBy(() -> ChannelSinkOptions.builder(reg).tls(certs.chain.toString(), null).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("fanout.channel.tls.cert").hasMessageContaining("fanout.channel.tls.key");
        assertThatThrownBy(() -> ChannelSinkOptions.builder(reg).tls(null, certs.key.toString()).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("fanout.channel.tls.key is set but fanout.channel.tls.cert is not");
        Path missing = registryDir.resolve("no-such-cert.pem");
        assertThatThrownBy(() -> ChannelSinkOptions.builder(reg).tls(missing.toString(), certs.key.toString()).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("fanout.channel.tls.cert").hasMessageContaining(missing.toString())
                .hasMessageContaining("cannot read");
        Path notPem = Files.writeString(registryDir.resolve("garbage.pem"), "hello");
        assertThatThrownBy(() -> ChannelSinkOptions.builder(reg).tls(certs.chain.toString(), notPem.toString()).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("fanout.channel.tls.key").hasMessageContaining(notPem.toString())
                .hasMessageContaining("PKCS#8");
        assertThatThrownBy(() -> ChannelSinkOptions.builder(reg).tls(notPem.toString(), certs.key.toString()).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("fanout.channel.tls.cert").hasMessageContaining(notPem.toString());
        // The key of another certificate.
        assertThatThrownBy(() -> ChannelSinkOptions.builder(reg).tls(certs.chain.toString(), otherCa.key.toString()).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("fanout.channel.tls.key").hasMessageContaining(otherCa.key.toString())
                .hasMessageContaining("does not match the certificate of fanout.channel.tls.cert");
        // A bad CA file for the reader fails when the reader is made, naming the file.
        assertThatThrownBy(() -> ChannelReader.fromRegistry(registryDir, readerOptions().tlsCa(missing)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("tlsCa").hasMessageContaining(missing.toString());
    }
}
