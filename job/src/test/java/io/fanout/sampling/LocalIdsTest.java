package io.fanout.sampling;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class LocalIdsTest {

    @Test
    void everyIdGetsItsFirstOccurrenceIndexThroughGrowth() {
        SplittableRandom random = new SplittableRandom(7);
        // Starting tiny makes it grow many times; ids repeat, span int64 (0, negatives) and collide in low bits.
        LocalIds ids = new LocalIds(1);
        Map<Long, Integer> expected = new HashMap<>();
        long[] order = new long[200_000];
        int n = 0;
        for (int i = 0; i < 200_000; i++) {
            long id = switch (i % 4) {
                case 0 -> random.nextLong(1_000);
                case 1 -> random.nextLong();
                case 2 -> random.nextLong(30_000) << 32;
                default -> -random.nextLong(100);
            };
            Integer known = expected.putIfAbsent(id, n);
            if (known == null) {
                order[n++] = id;
            }
            assertEquals(known == null ? n - 1 : known, ids.add(id), "id " + id);
        }
        assertEquals(n, ids.size());
        long[] all = ids.toArray();
        assertEquals(n, all.length);
        for (int i = 0; i < n; i++) {
            assertEquals(order[i], all[i]);
        }
        assertArrayEquals(java.util.Arrays.copyOfRange(order, 10, 20), ids.range(10, 20));
    }

    @Test
    void ensureCapacityKeepsEveryIndexAndGrowsNothingLater() {
        LocalIds ids = new LocalIds(2);
        for (long id = 0; id < 100; id++) {
            ids.add(id * 1024);
        }
        ids.ensureCapacity(10_000);
        long[] before = ids.toArray();
        for (long id = 0; id < 100; id++) {
            assertEquals((int) id, ids.add(id * 1024));
        }
        for (long id = 100; id < 10_000; id++) {
            assertEquals((int) id, ids.add(id * 1024));
        }
        assertEquals(10_000, ids.size());
        // Exactly full: the array itself; the copy taken before it filled is unchanged.
        assertTrue(ids.toArray() == ids.toArray());
        assertEquals(100, before.length);
    }

    @Test
    void aBatchTooLargeForTheIndexIsRefusedNamingTheOptions() {
        LocalIds ids = new LocalIds(4);
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> ids.ensureCapacity(LocalIds.MAX_IDS + 1));
        assertTrue(e.getMessage().contains("--batch-size"), e.getMessage());
    }

    @Test
    void adoptedIdsKeepTheirIndicesAndTheIndexIsBuiltAtTheFirstAdd() {
        long[] array = new long[8];
        long[] known = {Long.MIN_VALUE, 42, -7, 1L << 40, 0};
        System.arraycopy(known, 0, array, 0, known.length);
        LocalIds ids = LocalIds.adopt(array, known.length, 100);
        assertEquals(known.length, ids.size());
        for (int i = 0; i < known.length; i++) {
            assertEquals(known[i], ids.id(i)); // read by index, no index built
        }
        for (int i = known.length - 1; i >= 0; i--) {
            assertEquals(i, ids.add(known[i]));
        }
        for (int i = 0; i < 200; i++) { // past the adopted array and the expected room
            assertEquals(known.length + i, ids.add(1000 + i));
        }
        assertEquals(2, ids.add(-7));
        java.nio.LongBuffer out = java.nio.LongBuffer.allocate(ids.size());
        ids.putIds(out);
        assertArrayEquals(ids.toArray(), out.array());
        assertThrows(IllegalArgumentException.class, () -> LocalIds.adopt(new long[2], 3, 0));
    }
}
