package io.fanout.connectors.channel.tls;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collection;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;

/**
 * TLS of the channel (docs/channel-protocol.md) with the JDK alone: the endpoint's context from a PEM
 * certificate chain and a PEM PKCS#8 key, the reader's from a PEM CA file; TLSv1.3 and TLSv1.2 only.
 * Every load error names the option (or setting) and the file, so a bad value fails up front.
 */
public final class ChannelTls {
    /** The protocols both sides enable. */
    public static final String[] PROTOCOLS = {"TLSv1.3", "TLSv1.2"};
    private static final Pattern PEM_KEY = Pattern.compile(
            "-----BEGIN ([A-Z ]*)PRIVATE KEY-----\\s*([A-Za-z0-9+/=\\s]+?)-----END \\1PRIVATE KEY-----");

    private ChannelTls() {}

    /**
     * The endpoint's context: {@code cert} is a PEM certificate chain, leaf first; {@code key} an
     * unencrypted PEM PKCS#8 private key (RSA or EC) that must belong to the leaf certificate.
     *
     * @param certOption the option naming {@code cert}, for errors
     * @param keyOption the option naming {@code key}, for errors
     * @throws IllegalArgumentException naming the option and the file when a file is unreadable,
     *     unparseable, or the key does not match the certificate
     */
    public static SSLContext serverContext(Path cert, String certOption, Path key, String keyOption) {
        List<X509Certificate> chain = readCertificates(cert, certOption);
        PrivateKey privateKey = readPrivateKey(key, keyOption);
        checkKeyMatches(chain.get(0), privateKey, cert, certOption, key, keyOption);
        try {
            KeyStore ks = KeyStore.getInstance("PKCS12");
            ks.load(null, null);
            char[] pass = new char[0];
            ks.setKeyEntry("channel", privateKey, pass, chain.toArray(new Certificate[0]));
            KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            kmf.init(ks, pass);
            SSLContext ctx = SSLContext.getInstance("TLS");
            ctx.init(kmf.getKeyManagers(), null, new SecureRandom());
            return ctx;
        } catch (GeneralSecurityException | IOException e) {
            throw new IllegalArgumentException("option " + certOption + " = " + cert + " / " + keyOption + " = " + key
                    + ": cannot build a TLS server context: " + e.getMessage(), e);
        }
    }

    /**
     * The reader's context: trusts exactly the CA certificates of the PEM file {@code ca} (a CA or a
     * bundle); the endpoint's host name is checked against its certificate.
     *
     * @param caSetting the setting naming {@code ca}, for errors
     */
    public static SSLContext clientContext(Path ca, String caSetting) {
        List<X509Certificate> cas = readCertificates(ca, caSetting);
        try {
            KeyStore ts = KeyStore.getInstance("PKCS12");
            ts.load(null, null);
            for (int i = 0; i < cas.size(); i++) {
                ts.setCertificateEntry("ca-" + i, cas.get(i));
            }
            TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(ts);
            SSLContext ctx = SSLContext.getInstance("TLS");
            ctx.init(null, tmf.getTrustManagers(), new SecureRandom());
            return ctx;
        } catch (GeneralSecurityException | IOException e) {
            throw new IllegalArgumentException(caSetting + " = " + ca + ": cannot build a TLS trust context: " + e.getMessage(), e);
        }
    }

    /**
     * Layers TLS over an accepted {@code plain} socket as the server, {@code consumed} being the bytes
     * already read from it (the start of the ClientHello), and completes the handshake.
     */
    public static SSLSocket accept(SSLContext ctx, Socket plain, byte[] consumed) throws IOException {
        SSLSocket s = (SSLSocket) ctx.getSocketFactory().createSocket(plain, new ByteArrayInputStream(consumed), true);
        s.setEnabledProtocols(PROTOCOLS);
        s.startHandshake();
        return s;
    }

    /**
     * Layers TLS over the connected {@code plain} socket as a client of {@code host} (the name the
     * certificate must carry: DNS or IP subjectAltName) and completes the handshake.
     */
    public static SSLSocket connect(SSLContext ctx, Socket plain, String host, int port) throws IOException {
        SSLSocket s = (SSLSocket) ctx.getSocketFactory().createSocket(plain, host, port, true);
        SSLParameters p = s.getSSLParameters();
        p.setProtocols(PROTOCOLS);
        p.setEndpointIdentificationAlgorithm("HTTPS");
        s.setSSLParameters(p);
        s.startHandshake();
        return s;
    }

    private static byte[] read(Path file, String option) {
        try {
            return Files.readAllBytes(file);
        } catch (IOException e) {
            throw new IllegalArgumentException(option + " = " + file + ": cannot read the file (" + e + ")", e);
        }
    }

    private static List<X509Certificate> readCertificates(Path file, String option) {
        byte[] bytes = read(file, option);
        Collection<? extends Certificate> certs;
        try {
            certs = CertificateFactory.getInstance("X.509").generateCertificates(new ByteArrayInputStream(bytes));
        } catch (GeneralSecurityException e) {
            throw new IllegalArgumentException(option + " = " + file + ": not a PEM certificate (chain): " + e.getMessage(), e);
        }
        List<X509Certificate> out = new ArrayList<>();
        for (Certificate c : certs) {
            out.add((X509Certificate) c);
        }
        if (out.isEmpty()) {
            throw new IllegalArgumentException(option + " = " + file + ": no certificate in the file (expected PEM "
                    + "-----BEGIN CERTIFICATE----- blocks)");
        }
        return out;
    }

    private static PrivateKey readPrivateKey(Path file, String option) {
        String pem = new String(read(file, option), StandardCharsets.US_ASCII);
        Matcher m = PEM_KEY.matcher(pem);
        if (!m.find()) {
            throw new IllegalArgumentException(option + " = " + file + ": no PEM private key in the file (expected "
                    + "-----BEGIN PRIVATE KEY-----, unencrypted PKCS#8; convert with: openssl pkcs8 -topk8 -nocrypt -in KEY -out KEY.pk8)");
        }
        if (!m.group(1).isEmpty()) {
            throw new IllegalArgumentException(option + " = " + file + ": the key is \"" + m.group(1) + "PRIVATE KEY\", expected "
                    + "unencrypted PKCS#8 (\"PRIVATE KEY\"); convert with: openssl pkcs8 -topk8 -nocrypt -in KEY -out KEY.pk8");
        }
        byte[] der;
        try {
            der = Base64.getMimeDecoder().decode(m.group(2));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(option + " = " + file + ": the PEM key is not valid base64", e);
        }
        PKCS8EncodedKeySpec spec = new PKCS8EncodedKeySpec(der);
        for (String alg : new String[] {"RSA", "EC"}) {
            try {
                return KeyFactory.getInstance(alg).generatePrivate(spec);
            } catch (GeneralSecurityException e) {
                // try the next algorithm
            }
        }
        throw new IllegalArgumentException(option + " = " + file + ": not an RSA or EC PKCS#8 private key");
    }

    /** Signs a challenge with the key and verifies it with the certificate's public key. */
    private static void checkKeyMatches(X509Certificate leaf, PrivateKey key, Path cert, String certOption, Path keyFile,
            String keyOption) {
        String alg = switch (key.getAlgorithm()) {
            case "RSA" -> "SHA256withRSA";
            case "EC" -> "SHA256withECDSA";
            default -> throw new IllegalArgumentException(keyOption + " = " + keyFile + ": unsupported key type " + key.getAlgorithm());
        };
        boolean ok;
        try {
            byte[] challenge = new byte[32];
            new SecureRandom().nextBytes(challenge);
            Signature signer = Signature.getInstance(alg);
            signer.initSign(key);
            signer.update(challenge);
            byte[] sig = signer.sign();
            Signature verifier = Signature.getInstance(alg);
            verifier.initVerify(leaf.getPublicKey());
            verifier.update(challenge);
            ok = verifier.verify(sig);
        } catch (GeneralSecurityException e) {
            ok = false;
        }
        if (!ok) {
            throw new IllegalArgumentException(keyOption + " = " + keyFile + ": the key does not match the certificate of "
                    + certOption + " = " + cert + " (" + leaf.getSubjectX500Principal().getName() + ")");
        }
    }
}
