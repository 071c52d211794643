package io.fanout.connectors.channel.tls;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.Key;
import java.security.KeyStore;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

/**
 * A throw-away CA and a server certificate it signed (subjectAltName IP:127.0.0.1 and DNS:localhost),
 * made with the JDK's keytool, as the PEM files the channel options take: {@code ca.pem},
 * {@code server-chain.pem} (leaf, then CA) and {@code server-key.pem} (PKCS#8).
 */
public final class TestCertificates {
    public final Path dir;
    public final Path ca;
    public final Path chain;
    public final Path key;

    private TestCertificates(Path dir) {
        this.dir = dir;
        this.ca = dir.resolve("ca.pem");
        this.chain = dir.resolve("server-chain.pem");
        this.key = dir.resolve("server-key.pem");
    }

    /** Makes a CA named {@code caName} and an EC server certificate for 127.0.0.1/localhost in {@code dir}. */
    public static TestCertificates create(Path dir, String caName) throws IOException, InterruptedException, GeneralSecurityException {
        Files.createDirectories(dir);
        TestCertificates c = new TestCertificates(dir);
        String pass = "changeit";
        Path caStore = dir.resolve("ca.p12");
        Path serverStore = dir.resolve("server.p12");
        keytool("-genkeypair", "-alias", "ca", "-keyalg", "EC", "-groupname", "secp256r1", "-dname", "CN=" + caName,
                "-ext", "bc:c", "-validity", "2", "-keystore", caStore.toString(), "-storetype", "PKCS12", "-storepass", pass);
        keytool("-genkeypair", "-alias", "server", "-keyalg", "EC", "-groupname", "secp256r1", "-dname", "CN=localhost",
                "-validity", "2", "-keystore", serverStore.toString(), "-storetype", "PKCS12", "-storepass", pass);
        Path csr = dir.resolve("server.csr");
        keytool("-certreq", "-alias", "server", "-keystore", serverStore.toString(), "-storepass", pass, "-file", csr.toString());
        Path leaf = dir.resolve("server.pem");
        keytool("-gencert", "-alias", "ca", "-keystore", caStore.toString(), "-storepass", pass, "-infile", csr.toString(),
                "-outfile", leaf.toString(), "-rfc", "-validity", "2", "-ext", "san=ip:127.0.0.1,dns:localhost");
        keytool("-exportcert", "-alias", "ca", "-keystore", caStore.toString(), "-storepass", pass, "-rfc", "-file", c.ca.toString());
        Files.writeString(c.chain, Files.readString(leaf) + Files.readString(c.ca));
        KeyStore ks = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(serverStore)) {
            ks.load(in, pass.toCharArray());
        }
        Key k = ks.getKey("server", pass.toCharArray());
        Files.writeString(c.key, pem("PRIVATE KEY", k.getEncoded()));
        return c;
    }

    static String pem(String type, byte[] der) {
        return "-----BEGIN " + type + "-----\n" + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(der)
                + "\n-----END " + type + "-----\n";
    }

    private static void keytool(String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.waitFor() != 0) {
            throw new IOException("keytool " + String.join(" ", args) + " failed: " + out);
        }
    }
}
