package io.fanout.graph;

/** Node ids held as a bit set ({@code long} words, bit {@code id & 63} of word {@code id >>> 6}). */
final class IdBits {
    private IdBits() {}

    /** How many ids are set. */
    static long count(long[] words) {
        long count = 0;
        for (long word : words) {
            count += Long.bitCount(word);
        }
        return count;
    }

    /** The set ids in ascending order; {@code count} is {@link #count(long[])} of {@code words}. */
    static long[] ascending(long[] words, long count) {
        long[] ids = new long[Math.toIntExact(count)];
        int k = 0;
        for (int w = 0; w < words.length; w++) {
            long word = words[w];
            while (word != 0) {
                ids[k++] = ((long) w << 6) + Long.numberOfTrailingZeros(word);
                word &= word - 1;
            }
        }
        return ids;
    }
}
