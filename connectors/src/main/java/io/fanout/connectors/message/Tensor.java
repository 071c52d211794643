package io.fanout.connectors.message;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * One named tensor of a {@link TensorMessage}: a dtype, a shape and little-endian element data.
 *
 * <p>A tensor built by the sampler keeps the sampler's primitive array (no copy) and writes it
 * straight into the encoded blob; {@link #ofInt64(int[])} keeps an {@code int[]} and widens it to
 * int64 only while encoding. A decoded tensor is a read-only little-endian view of the blob. The
 * {@code as...Array()} accessors always return a fresh array.
 */
public final class Tensor {
    private static final VarHandle LONG_LE = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle INT_LE = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle DOUBLE_LE = MethodHandles.byteArrayViewVarHandle(double[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle FLOAT_LE = MethodHandles.byteArrayViewVarHandle(float[].class, ByteOrder.LITTLE_ENDIAN);

    private final DType dtype;
    private final long[] shape;
    private final long numElements;
    /** One of long[], int[], double[], float[], byte[] (element values) or a little-endian ByteBuffer. */
    private final Object data;

    private Tensor(DType dtype, long[] shape, Object data, long available) {
        this.dtype = dtype;
        this.shape = shape.clone();
        long n = 1;
        for (long d : shape) {
            if (d < 0) {
                throw new IllegalArgumentException("negative dimension in shape " + Arrays.toString(shape));
            }
            n = Math.multiplyExact(n, d);
        }
        if (n != available) {
            throw new IllegalArgumentException("shape " + Arrays.toString(shape) + " needs " + n + " elements, data has " + available);
        }
        this.numElements = n;
        this.data = data;
    }

    private static long[] vector(int length) {
        return new long[] {length};
    }

    /** int64 tensor over {@code data} (not copied), 1-D. */
    public static Tensor ofInt64(long[] data) {
        return new Tensor(DType.I64, vector(data.length), data, data.length);
    }

    /** int64 tensor over {@code data} (not copied) with the given shape. */
    public static Tensor ofInt64(long[] data, long[] shape) {
        return new Tensor(DType.I64, shape, data, data.length);
    }

    /** int64 tensor over an {@code int[]} (not copied): widened to int64 while encoding, 1-D. */
    public static Tensor ofInt64(int[] data) {
        return new Tensor(DType.I64, vector(data.length), data, data.length);
    }

    /** 1-D int64 tensor over the first {@code length} entries of an {@code int[]} (not copied). */
    public static Tensor ofInt64Prefix(int[] data, int length) {
        if (length < 0 || length > data.length) {
            throw new IllegalArgumentException("prefix length " + length + " outside 0.." + data.length);
        }
        return new Tensor(DType.I64, vector(length), data, length);
    }

    /** An int64 tensor of shape {@code shape} from an {@code int[]} (widened at encode time). */
    public static Tensor ofInt64(int[] data, long[] shape) {
        return new Tensor(DType.I64, shape, data, data.length);
    }

    /** 0-dimensional (scalar) int64 tensor. */
    public static Tensor scalarInt64(long value) {
        return new Tensor(DType.I64, new long[0], new long[] {value}, 1);
    }

    /** int32 tensor over {@code data} (not copied). */
    public static Tensor ofInt32(int[] data, long[] shape) {
        return new Tensor(DType.I32, shape, data, data.length);
    }

    /** float64 tensor over {@code data} (not copied). */
    public static Tensor ofFloat64(double[] data, long[] shape) {
        return new Tensor(DType.F64, shape, data, data.length);
    }

    /** 0-dimensional (scalar) float64 tensor. */
    public static Tensor scalarFloat64(double value) {
        return new Tensor(DType.F64, new long[0], new double[] {value}, 1);
    }

    /** float32 tensor over {@code data} (not copied). */
    public static Tensor ofFloat32(float[] data, long[] shape) {
        return new Tensor(DType.F32, shape, data, data.length);
    }

    /** uint8 tensor over {@code data} (not copied). */
    public static Tensor ofUInt8(byte[] data, long[] shape) {
        return new Tensor(DType.U8, shape, data, data.length);
    }

    /**
     * Tensor of any dtype from its little-endian bytes (not copied); the way to build BOOL, I8, I16,
     * U16, U32, U64, F16 and BF16 tensors.
     */
    public static Tensor ofBytes(DType dtype, long[] shape, byte[] littleEndianData) {
        if (littleEndianData.length % dtype.size() != 0) {
            throw new IllegalArgumentException(littleEndianData.length + " bytes is not a whole number of " + dtype + " elements");
        }
        return new Tensor(dtype, shape, ByteBuffer.wrap(littleEndianData).order(ByteOrder.LITTLE_ENDIAN).asReadOnlyBuffer()
                .order(ByteOrder.LITTLE_ENDIAN), littleEndianData.length / dtype.size());
    }

    /** A read-only view of {@code length} bytes of a decoded blob. */
    static Tensor view(DType dtype, long[] shape, ByteBuffer blob, int offset, int length) {
        ByteBuffer slice = blob.duplicate().position(offset).limit(offset + length).slice().asReadOnlyBuffer()
                .order(ByteOrder.LITTLE_ENDIAN);
        return new Tensor(dtype, shape, slice, length / dtype.size());
    }

    public DType dtype() {
        return dtype;
    }

    /** The shape (a copy); {@code []} for a scalar. */
    public long[] shape() {
        return shape.clone();
    }

    /** Number of dimensions. */
    public int rank() {
        return shape.length;
    }

    /** Number of elements (the product of the shape; 1 for a scalar). */
    public long numElements() {
        return numElements;
    }

    /** Size of the encoded data in bytes. */
    public long byteSize() {
        return numElements * dtype.size();
    }

    /** Writes the little-endian data at {@code dst[offset..offset+byteSize())}: the encoder's hot path. */
    void writeTo(byte[] dst, int offset) {
        int n = (int) numElements;
        if (data instanceof long[]) {
            long[] a = (long[]) data;
            for (int i = 0; i < n; i++) {
                LONG_LE.set(dst, offset + 8 * i, a[i]);
            }
        } else if (data instanceof int[]) {
            int[] a = (int[]) data;
            if (dtype == DType.I64) {
                for (int i = 0; i < n; i++) {
                    LONG_LE.set(dst, offset + 8 * i, (long) a[i]);
                }
            } else {
                for (int i = 0; i < n; i++) {
                    INT_LE.set(dst, offset + 4 * i, a[i]);
                }
            }
        } else if (data instanceof double[]) {
            double[] a = (double[]) data;
            for (int i = 0; i < n; i++) {
                DOUBLE_LE.set(dst, offset + 8 * i, a[i]);
            }
        } else if (data instanceof float[]) {
            float[] a = (float[]) data;
            for (int i = 0; i < n; i++) {
                FLOAT_LE.set(dst, offset + 4 * i, a[i]);
            }
        } else if (data instanceof byte[]) {
            System.arraycopy((byte[]) data, 0, dst, offset, n);
        } else {
            ((ByteBuffer) data).duplicate().get(dst, offset, (int) byteSize());
        }
    }

    /** The little-endian data bytes (for U8, I8 and BOOL: the element values). */
    public byte[] asByteArray() {
        byte[] out = new byte[Math.toIntExact(byteSize())];
        writeTo(out, 0);
        return out;
    }

    /** Element {@code i} of an integer or BOOL tensor as a long (U64 as its two's complement bits). */
    private long integerAt(ByteBuffer b, int i) {
        switch (dtype) {
            case I64:
            case U64:
                return b.getLong(8 * i);
            case I32:
                return b.getInt(4 * i);
            case U32:
                return Integer.toUnsignedLong(b.getInt(4 * i));
            case I16:
                return b.getShort(2 * i);
            case U16:
                return Short.toUnsignedInt(b.getShort(2 * i));
            case I8:
                return b.get(i);
            case U8:
            case BOOL:
                return Byte.toUnsignedInt(b.get(i));
            default:
                throw new UnsupportedOperationException(dtype + " tensor has no integer values");
        }
    }

    private ByteBuffer littleEndianBuffer() {
        return data instanceof ByteBuffer
                ? (ByteBuffer) data
                : ByteBuffer.wrap(asByteArray()).order(ByteOrder.LITTLE_ENDIAN);
    }

    /** The values of an integer or BOOL tensor widened to long (U64 as raw bits). */
    public long[] asLongArray() {
        if (data instanceof long[]) {
            return ((long[]) data).clone();
        }
        int n = (int) numElements;
        long[] out = new long[n];
        if (data instanceof int[]) {
            int[] a = (int[]) data;
            for (int i = 0; i < n; i++) {
                out[i] = a[i];
            }
            return out;
        }
        ByteBuffer b = littleEndianBuffer();
        for (int i = 0; i < n; i++) {
            out[i] = integerAt(b, i);
        }
        return out;
    }

    /** The values of an integer or BOOL tensor as int; {@code ArithmeticException} if one does not fit. */
    public int[] asIntArray() {
        if (data instanceof int[]) {
            return ((int[]) data).clone();
        }
        long[] wide = asLongArray();
        int[] out = new int[wide.length];
        for (int i = 0; i < wide.length; i++) {
            if (dtype == DType.U64 && wide[i] < 0 || wide[i] != (int) wide[i]) {
                throw new ArithmeticException(dtype + " element " + i + " = " + (dtype == DType.U64 ? Long.toUnsignedString(wide[i]) : wide[i])
                        + " does not fit in an int");
            }
            out[i] = (int) wide[i];
        }
        return out;
    }

    /** The values of an F64 or F32 tensor (F32 widened), or of an integer tensor converted to double. */
    public double[] asDoubleArray() {
        if (data instanceof double[]) {
            return ((double[]) data).clone();
        }
        int n = (int) numElements;
        double[] out = new double[n];
        if (dtype == DType.F64 || dtype == DType.F32) {
            ByteBuffer b = littleEndianBuffer();
            for (int i = 0; i < n; i++) {
                out[i] = dtype == DType.F64 ? b.getDouble(8 * i) : b.getFloat(4 * i);
            }
            return out;
        }
        if (dtype == DType.F16 || dtype == DType.BF16) {
            throw new UnsupportedOperationException(dtype + " tensor: read its bytes with asByteArray()");
        }
        long[] wide = asLongArray();
        for (int i = 0; i < n; i++) {
            out[i] = dtype == DType.U64 && wide[i] < 0 ? Double.parseDouble(Long.toUnsignedString(wide[i])) : wide[i];
        }
        return out;
    }

    /** The values of an F32 tensor. */
    public float[] asFloatArray() {
        if (dtype != DType.F32) {
            throw new UnsupportedOperationException(dtype + " tensor is not F32");
        }
        if (data instanceof float[]) {
            return ((float[]) data).clone();
        }
        ByteBuffer b = littleEndianBuffer();
        float[] out = new float[(int) numElements];
        for (int i = 0; i < out.length; i++) {
            out[i] = b.getFloat(4 * i);
        }
        return out;
    }

    /** Equal when dtype, shape and data bytes are equal (however each side is backed). */
    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof Tensor)) {
            return false;
        }
        Tensor t = (Tensor) o;
        return dtype == t.dtype && Arrays.equals(shape, t.shape) && Arrays.equals(asByteArray(), t.asByteArray());
    }

    @Override
    public int hashCode() {
        return 31 * (31 * dtype.hashCode() + Arrays.hashCode(shape)) + Arrays.hashCode(asByteArray());
    }

    @Override
    public String toString() {
        return "Tensor{" + dtype + " " + Arrays.toString(shape) + "}";
    }
}
