package io.fanout.sampling.ppr;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.IntBuffer;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** {@link PushNodes}: dense slots in order of first sight, kept through bytes, and a scratch map left all -1; {@link SlotLists} over them. */
class PushNodesTest {
    @Test
    void slotsAreDenseInOrderOfFirstSightAndSurviveBytes() {
        PushNodes nodes = new PushNodes();
        long[] ids = {Long.MIN_VALUE, 42, -7, Long.MAX_VALUE, 0};
        for (int round = 0; round < 2; round++) {
            for (int i = 0; i < ids.length; i++) {
                assertThat(nodes.slot(ids[i])).isEqualTo(i);
            }
        }
        for (int i = 0; i < 100; i++) {
            nodes.slot(1000 + i); // past the first capacity
        }
        ByteBuffer buffer = ByteBuffer.allocate((int) nodes.serializedSize());
        nodes.write(buffer);
        assertThat(buffer.hasRemaining()).isFalse();
        PushNodes read = PushNodes.read(ByteBuffer.wrap(buffer.array()));
        assertThat(read.size()).isEqualTo(105);
        for (int s = 0; s < read.size(); s++) {
            assertThat(read.id(s)).isEqualTo(nodes.id(s));
        }
        // The id map is rebuilt on demand: known ids keep their slots, a new one takes the next.
        assertThat(read.slot(42)).isEqualTo(1);
        assertThat(read.slot(1099)).isEqualTo(104);
        assertThat(read.slot(5)).isEqualTo(105);
    }

    @Test
    void manyIdsKeepTheirSlotsThroughGrowthAndBytes() {
        PushNodes nodes = new PushNodes();
        java.util.Map<Long, Integer> expected = new java.util.HashMap<>();
        io.fanout.random.SplitMix64 random = new io.fanout.random.SplitMix64(7);
        for (int i = 0; i < 50_000; i++) {
            // Ids that collide in the low bits too (multiples of 2^20), and repeats.
            long id = i % 3 == 0 ? (random.nextLong() & 0xffff) << 20 : random.nextLong();
            int slot = nodes.slot(id);
            assertThat(slot).isEqualTo(expected.computeIfAbsent(id, k -> expected.size()));
        }
        ByteBuffer buffer = ByteBuffer.allocate((int) nodes.serializedSize());
        nodes.write(buffer);
        PushNodes read = PushNodes.read(ByteBuffer.wrap(buffer.array()));
        for (var e : expected.entrySet()) {
            assertThat(read.slot(e.getKey())).isEqualTo(e.getValue());
        }
        assertThat(read.slot(-1L)).isEqualTo(expected.containsKey(-1L) ? expected.get(-1L) : expected.size());
        assertThatThrownBy(() -> PushNodes.read(ByteBuffer.wrap(new byte[] {0, 0, 0, 9, 1, 2})))
                .hasMessage("9 nodes in 2 bytes of a batch push state");
    }

    @Test
    void scratchCoversEverySlotAndStartsEmpty() {
        PushNodes nodes = new PushNodes();
        for (int i = 0; i < 40; i++) {
            nodes.slot(i * 3L);
        }
        int[] scratch = nodes.localScratch();
        assertThat(scratch.length).isGreaterThanOrEqualTo(40);
        assertThat(scratch).containsOnly(-1);
    }

    @Test
    void aListNamesItsNeighboursBySlotAndReadsBackFromItsInts() {
        PushNodes nodes = new PushNodes();
        int node = nodes.slot(9);
        SlotLists lists = new SlotLists(0);
        assertThat(lists.add(node, new FetchedList(5, new long[] {3, 9, 4}, new int[] {1, 2, 3}), nodes)).isTrue();
        assertThat(lists.add(node, new FetchedList(1, new long[] {7}, new int[] {1}), nodes))
                .as("a second list for a node").isFalse();
        int a = lists.at(node);
        int[] entries = lists.entries();
        assertThat(Arrays.copyOfRange(entries, a, a + 9)).containsExactly(node, 5, 3, 1, 0, 2, 1, 2, 3);
        assertThat(nodes.id(1)).isEqualTo(3);
        assertThat(nodes.id(2)).isEqualTo(4);
        assertThat(lists.has(1)).isFalse();
        // A list given as a range of a fetch's arrays: checked as a FetchedList is.
        long[] answer = {7, 8, 9};
        int[] answerDegrees = {1, 1, 1};
        assertThatThrownBy(() -> lists.add(nodes.slot(100), 1, answer, answerDegrees, 0, 2, nodes))
                .hasMessage("degree 1 with 2 read neighbours");
        assertThatThrownBy(() -> lists.add(nodes.slot(100), 3, answer, answerDegrees, 2, 4, nodes))
                .hasMessage("neighbours [2, 4) of 3 ids and 3 degrees");
        assertThat(lists.count()).isEqualTo(1);
        int listsBefore = lists.size();

        assertThat(lists.size()).isEqualTo(listsBefore);
        IntBuffer ints = IntBuffer.allocate(lists.size());
        lists.write(ints);
        SlotLists readBack = SlotLists.read(ints.flip(), 1, nodes.size());
        assertThat(readBack.count()).isEqualTo(1);
        int b = readBack.at(node);
        assertThat(Arrays.copyOfRange(readBack.entries(), b, b + 9)).containsExactly(node, 5, 3, 1, 0, 2, 1, 2, 3);
        assertThat(readBack.has(1)).isFalse();
        assertThatThrownBy(() -> SlotLists.read(IntBuffer.wrap(new int[] {0, 5, 3, 1, 0, 2, 1, 2, 3, 0}), 1, 3))
                .hasMessage("4 bytes after the batch push state");
        assertThatThrownBy(() -> SlotLists.read(IntBuffer.wrap(new int[] {0, 5, 4, 1, 0, 2, 1, 2, 3}), 1, 3))
                .hasMessage("list 0 of 1 claims 4 neighbours, past the state");
    }
}
