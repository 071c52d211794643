package io.fanout.testing;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * bitcoin_alpha with sampling-ready weights: its trust ratings are -10..10 (signed, never 0), and the data
 * README says to shift (w + 11, giving 1..21) or take |w| before weighted sampling. Tests write the shifted
 * copy into their temporary directory; the shared data is never copied into the repository.
 */
public final class ShiftedWeights {
    /** The shift, as the data README suggests: every rating becomes 1..21. */
    public static final int SHIFT = 11;

    private ShiftedWeights() {
    }

    /** Writes {@code dir/edges.tsv}: bitcoin_alpha with every weight + {@link #SHIFT}; returns the file. */
    public static Path bitcoinAlpha(Path dir) throws IOException {
        Path out = dir.resolve("edges.tsv");
        try (BufferedReader in = Files.newBufferedReader(SharedData.graph("bitcoin_alpha").resolve("edges.tsv"),
                StandardCharsets.UTF_8);
                BufferedWriter w = Files.newBufferedWriter(out, StandardCharsets.UTF_8)) {
            for (String line; (line = in.readLine()) != null; ) {
                if (line.startsWith("#")) {
                    w.write(line.replace("weight_note=trust_rating_-10..10", "weight_note=trust_rating_plus_11"));
                } else {
                    String[] f = line.split("\t");
                    w.write(f[0] + "\t" + f[1] + "\t" + (Integer.parseInt(f[2]) + SHIFT) + "\t" + f[3]);
                }
                w.write('\n');
            }
        }
        return out;
    }
}
