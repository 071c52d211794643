package io.fanout.sampling.ppr;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/** {@link PushNodes}: dense slots in order of first sight, kept through bytes, and a scratch map left all -1. */
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
    void aBoundListNamesItsNeighboursBySlotAndReadsBackTheirIds() {
        PushNodes nodes = new PushNodes();
        nodes.slot(9);
        FetchedList bound = new FetchedList(5, new long[] {3, 9, 4}, new int[] {1, 2, 3}).bind(nodes);
        assertThat(bound.slots()).containsExactly(1, 0, 2);
        FetchedList readBack = FetchedList.ofSlots(5, bound.slots(), bound.neighborDegrees(), nodes);
        assertThat(readBack.neighbors()).containsExactly(3, 9, 4);
        assertThat(readBack.degree()).isEqualTo(5);
    }
}
