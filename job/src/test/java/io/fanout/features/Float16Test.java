package io.fanout.features;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Half-precision conversion against values whose encodings are known exactly. */
class Float16Test {
    @Test
    void knownEncodings() {
        assertThat(Float16.fromFloat(0f)).isEqualTo((short) 0x0000);
        assertThat(Float16.fromFloat(-0f)).isEqualTo((short) 0x8000);
        assertThat(Float16.fromFloat(1f)).isEqualTo((short) 0x3c00);
        assertThat(Float16.fromFloat(-2f)).isEqualTo((short) 0xc000);
        assertThat(Float16.fromFloat(65504f)).isEqualTo((short) 0x7bff); // largest finite half
        assertThat(Float16.fromFloat(65520f)).isEqualTo((short) 0x7c00); // rounds up to infinity
        assertThat(Float16.fromFloat(0x1p-24f)).isEqualTo((short) 0x0001); // smallest subnormal
        assertThat(Float16.fromFloat(0x1p-14f)).isEqualTo((short) 0x0400); // smallest normal
        assertThat(Float16.fromFloat(Float.POSITIVE_INFINITY)).isEqualTo((short) 0x7c00);
        assertThat(Float16.toFloat(Float16.fromFloat(Float.NaN))).isNaN();
        // 1 + 2^-11 is halfway between 1 and 1 + 2^-10: ties to even (1.0).
        assertThat(Float16.fromFloat(1f + 0x1p-11f)).isEqualTo((short) 0x3c00);
        assertThat(Float16.fromFloat(1f + 3 * 0x1p-11f)).isEqualTo((short) 0x3c02);
    }

    @Test
    void everyHalfRoundTripsThroughFloat() {
        for (int bits = 0; bits < 0x10000; bits++) {
            short half = (short) bits;
            float f = Float16.toFloat(half);
            if (!Float.isNaN(f)) {
                assertThat(Float16.fromFloat(f)).as("bits 0x%04x", bits).isEqualTo(half);
            }
        }
    }
}
