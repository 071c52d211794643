package io.fanout.config;

/** What a fresh run does with an {@code --output} directory that is not empty ({@code fanout.output-mode}). */
public enum OutputMode {
    /** Refuse to start: a second run would add every batch again next to the first run's files. */
    ERROR,
    /** Delete Fanout's part files ({@code part-*.samples} and hidden in-progress parts) first; keep the rest. */
    OVERWRITE,
    /** Add this run's part files to what is there (each run's part files have their own unique names). */
    APPEND;

    @Override
    public String toString() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
