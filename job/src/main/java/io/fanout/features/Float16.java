package io.fanout.features;

/** IEEE 754 half-precision conversion (Java 17 has no {@code Float.floatToFloat16}). */
public final class Float16 {
    private Float16() {}

    /** The half-precision bits of {@code value}, rounded to nearest even; overflow gives infinity. */
    public static short fromFloat(float value) {
        int bits = Float.floatToRawIntBits(value);
        int sign = (bits >>> 16) & 0x8000;
        int exp = (bits >>> 23) & 0xff;
        int mant = bits & 0x7fffff;
        if (exp == 0xff) { // infinity or NaN (NaN keeps a quiet payload bit)
            return (short) (sign | 0x7c00 | (mant != 0 ? 0x200 : 0));
        }
        int e = exp - 127 + 15;
        if (e >= 0x1f) {
            return (short) (sign | 0x7c00);
        }
        if (e <= 0) { // subnormal half (or zero)
            if (e < -10) {
                return (short) sign;
            }
            int m = mant | 0x800000; // implicit leading one
            int shift = 14 - e; // 24-bit significand down to the subnormal's 10 bits
            int half = m >>> shift;
            int rest = m & ((1 << shift) - 1);
            int halfway = 1 << (shift - 1);
            if (rest > halfway || (rest == halfway && (half & 1) != 0)) {
                half++;
            }
            return (short) (sign | half);
        }
        int half = (e << 10) | (mant >>> 13);
        int rest = mant & 0x1fff;
        if (rest > 0x1000 || (rest == 0x1000 && (half & 1) != 0)) {
            half++; // may carry into the exponent, up to infinity: still correct
        }
        return (short) (sign | half);
    }

    /** The float value of half-precision bits. */
    public static float toFloat(short half) {
        int h = half & 0xffff;
        int sign = (h & 0x8000) << 16;
        int exp = (h >>> 10) & 0x1f;
        int mant = h & 0x3ff;
        if (exp == 0x1f) {
            return Float.intBitsToFloat(sign | 0x7f800000 | (mant << 13));
        }
        if (exp == 0) {
            float v = mant * 0x1p-24f; // subnormal (or zero)
            return sign != 0 ? -v : v;
        }
        return Float.intBitsToFloat(sign | ((exp - 15 + 127) << 23) | (mant << 13));
    }
}
