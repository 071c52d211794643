package io.fanout.connectors.message;

/** Tensor element types, named by their safetensors dtype strings, with element sizes in bytes. */
public enum DType {
    BOOL("BOOL", 1),
    U8("U8", 1),
    I8("I8", 1),
    I16("I16", 2),
    U16("U16", 2),
    F16("F16", 2),
    BF16("BF16", 2),
    I32("I32", 4),
    U32("U32", 4),
    F32("F32", 4),
    I64("I64", 8),
    U64("U64", 8),
    F64("F64", 8);

    private final String safetensorsName;
    private final int size;

    DType(String safetensorsName, int size) {
        this.safetensorsName = safetensorsName;
        this.size = size;
    }

    /** The dtype string in a safetensors header, e.g. {@code "I64"}. */
    public String safetensorsName() {
        return safetensorsName;
    }

    /** Bytes per element. */
    public int size() {
        return size;
    }

    /** Looks up a safetensors dtype string; {@code IllegalArgumentException} naming it when unknown. */
    public static DType fromSafetensors(String name) {
        for (DType t : values()) {
            if (t.safetensorsName.equals(name)) {
                return t;
            }
        }
        throw new IllegalArgumentException("unknown safetensors dtype \"" + name + "\"");
    }
}
