package io.fanout.testing;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;

/** Finds the shared real graphs ({@code <fanout.shared.dir>/data}) that tests read in place, never copy. */
public final class SharedData {
    private SharedData() {
    }

    /** The shared data directory: system property {@code fanout.shared.dir} (set by Surefire) or {@code ../shared}, plus {@code /data}. */
    public static Path dataDir() {
        Path dir = Paths.get(System.getProperty("fanout.shared.dir", "../shared"), "data").toAbsolutePath().normalize();
        if (!Files.isDirectory(dir)) {
            throw new IllegalStateException("shared data directory " + dir + " not found; set -Dfanout.shared.dir");
        }
        return dir;
    }

    /** The dataset directory {@code <shared>/data/<name>}, e.g. {@code graph("cora")}. */
    public static Path graph(String name) {
        Path graph = dataDir().resolve(name);
        if (!Files.exists(graph)) {
            throw new IllegalStateException("shared dataset " + graph + " not found");
        }
        return graph;
    }
}
