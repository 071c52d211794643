package io.fanout.features;

import java.util.Locale;

/** How node feature values are stored and shipped: float32 as read, float16, or per-column quantised uint8. */
public enum FeatureDType {
    /** 4 bytes a value, exact as read. */
    FLOAT32("F32", 4),
    /** 2 bytes a value, IEEE half precision (round to nearest even); about 3 significant digits. */
    FLOAT16("F16", 2),
    /**
     * 1 byte a value: per column {@code value ~= offset + scale * q} with {@code offset} the column minimum and
     * {@code scale = (max - min) / 255} (GiGL's per-feature min/max quantisation); the message carries scale and
     * offset so the client dequantises.
     */
    UINT8("U8", 1);

    private final String safetensorsName;
    private final int bytes;

    FeatureDType(String safetensorsName, int bytes) {
        this.safetensorsName = safetensorsName;
        this.bytes = bytes;
    }

    /** The safetensors dtype name of a stored value ({@code F32}, {@code F16}, {@code U8}). */
    public String safetensorsName() {
        return safetensorsName;
    }

    /** Bytes per stored value. */
    public int bytes() {
        return bytes;
    }

    /** The option value: {@code float32}, {@code float16}, {@code uint8}. */
    public String optionValue() {
        return name().toLowerCase(Locale.ROOT);
    }
}
