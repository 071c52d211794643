package io.fanout.digest;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/** SHA-256 for the job's fingerprints and content-named files (every JVM has SHA-256, so no checked exception). */
public final class Sha256 {
    private Sha256() {}

    /** A fresh SHA-256 digest. */
    public static MessageDigest create() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e); // required of every Java platform
        }
    }

    /** The first {@code digits} hex digits of {@code digest}'s result (which resets it). */
    public static String hex(MessageDigest digest, int digits) {
        return HexFormat.of().formatHex(digest.digest()).substring(0, digits);
    }

    /** The first {@code digits} hex digits of the SHA-256 of {@code text} (UTF-8). */
    public static String hex(String text, int digits) {
        MessageDigest sha = create();
        sha.update(text.getBytes(StandardCharsets.UTF_8));
        return hex(sha, digits);
    }
}
