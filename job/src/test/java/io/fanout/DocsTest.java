package io.fanout;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** The README stays a README (at most 400 lines) and every relative link of it and of docs/ leads somewhere. */
class DocsTest {
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)\\)");
    private static final Pattern HEADING = Pattern.compile("^#+ (.*)$", Pattern.MULTILINE);

    @Test
    void readmeIsAtMost400Lines() throws IOException {
        assertThat(Files.readAllLines(ROOT.resolve("README.md"), StandardCharsets.UTF_8))
                .as("README.md's lines: design notes and measurements belong in docs/").hasSizeLessThanOrEqualTo(400);
    }

    @Test
    void everyRelativeLinkResolvesToAFileAndHeading() throws IOException {
        List<Path> pages = new ArrayList<>(List.of(ROOT.resolve("README.md"), ROOT.resolve("deploy/METRICS.md"),
                ROOT.resolve("notebooks/README.md"), ROOT.resolve("connectors/python/README.md")));
        try (Stream<Path> docs = Files.list(ROOT.resolve("docs"))) {
            docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
        }
        List<String> broken = new ArrayList<>();
        int links = 0;
        for (Path page : pages) {
            Matcher m = LINK.matcher(Files.readString(page, StandardCharsets.UTF_8));
            while (m.find()) {
                String target = m.group(1);
                if (target.matches("[a-z]+:.*")) {
                    continue; // http:, https:, mailto:
                }
                links++;
                int hash = target.indexOf('#');
                String file = hash < 0 ? target : target.substring(0, hash);
                Path resolved = file.isEmpty() ? page : page.getParent().resolve(file).normalize();
                if (!Files.exists(resolved)) {
                    broken.add(ROOT.relativize(page) + ": " + target + " (no such file)");
                } else if (hash >= 0 && !anchors(resolved).contains(target.substring(hash + 1))) {
                    broken.add(ROOT.relativize(page) + ": " + target + " (no such heading)");
                }
            }
        }
        assertThat(links).as("links checked").isGreaterThan(20);
        assertThat(broken).as("broken links").isEmpty();
    }

    /** GitHub's anchors of a Markdown file's headings: lower case, punctuation dropped, spaces as dashes. */
    static List<String> anchors(Path file) throws IOException {
        List<String> out = new ArrayList<>();
        Matcher m = HEADING.matcher(Files.readString(file, StandardCharsets.UTF_8));
        while (m.find()) {
            out.add(m.group(1).trim().toLowerCase(Locale.ROOT).replaceAll("[^\\p{L}\\p{N}_ -]", "").replace(' ', '-'));
        }
        return out;
    }
}
