package io.fanout.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** A README.md section generated from the code, between two markers, that a test keeps equal to the code's. */
public final class GeneratedReadmeBlock {
    private GeneratedReadmeBlock() {
    }

    /**
     * Asserts that README.md holds {@code generated} between {@code begin} and {@code end}; with
     * {@code -Dfanout.updateReadme=true} rewrites it instead (so the README is never edited by hand there).
     *
     * @param what the section's name and the test that regenerates it, for the failure message
     */
    public static void check(String begin, String end, String generated, String what) throws IOException {
        Path readme = Path.of("..", "README.md").toAbsolutePath().normalize();
        String text = Files.readString(readme, StandardCharsets.UTF_8);
        int from = text.indexOf(begin);
        int to = text.indexOf(end);
        assertThat(from).as("README.md has the marker %s", begin).isGreaterThanOrEqualTo(0);
        assertThat(to).isGreaterThan(from);
        String block = "\n" + generated;
        String current = text.substring(from + begin.length(), to);
        if (Boolean.getBoolean("fanout.updateReadme") && !current.equals(block)) {
            Files.writeString(readme, text.substring(0, from + begin.length()) + block + text.substring(to),
                    StandardCharsets.UTF_8);
            return;
        }
        assertThat(current).as("README.md's %s (run it with -Dfanout.updateReadme=true)", what).isEqualTo(block);
    }
}
