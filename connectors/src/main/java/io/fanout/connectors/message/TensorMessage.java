package io.fanout.connectors.message;

import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * One sampled subgraph as named tensors (GLT's {@code TensorMessage}): an insertion-ordered map of
 * name to {@link Tensor}; keys are in {@link MessageKeys}.
 *
 * <p>The {@code put...} builders keep the caller's arrays without copying (do not modify them until
 * the message is encoded) and return {@code this} for chaining. An empty {@code shape} argument
 * means a 1-D tensor of the data's length; use {@link #put} with {@link Tensor#scalarInt64} for a
 * 0-dimensional tensor. The encoded form does not depend on insertion order (see
 * {@link SafetensorsCodec}).
 */
public final class TensorMessage {
    private final Map<String, Tensor> tensors = new LinkedHashMap<>();

    /** Adds or replaces tensor {@code name}. */
    public TensorMessage put(String name, Tensor tensor) {
        if (name == null || name.isEmpty()) {
            throw new IllegalArgumentException("tensor name must not be empty");
        }
        if (name.equals(SafetensorsCodec.METADATA_KEY)) {
            throw new IllegalArgumentException("\"" + name + "\" is reserved by safetensors for string metadata");
        }
        if (tensor == null) {
            throw new IllegalArgumentException("tensor \"" + name + "\" is null");
        }
        tensors.put(name, tensor);
        return this;
    }

    private static long[] shapeOr1d(long[] shape, int length) {
        return shape == null || shape.length == 0 ? new long[] {length} : shape;
    }

    /** int64 tensor; shape defaults to {@code [data.length]}. */
    public TensorMessage putInt64(String name, long[] data, long... shape) {
        return put(name, Tensor.ofInt64(data, shapeOr1d(shape, data.length)));
    }

    /** int64 tensor from an {@code int[]}, widened while encoding (no long[] copy); shape defaults to 1-D. */
    public TensorMessage putInt64(String name, int[] data, long... shape) {
        return put(name, Tensor.ofInt64(data, shapeOr1d(shape, data.length)));
    }

    /** One-element int64 tensor of shape {@code [1]}, e.g. {@code #IS_HETERO = [0]}, {@code #META.epoch}. */
    public TensorMessage putInt64(String name, long value) {
        return put(name, Tensor.ofInt64(new long[] {value}));
    }

    /** int32 tensor; shape defaults to 1-D. */
    public TensorMessage putInt32(String name, int[] data, long... shape) {
        return put(name, Tensor.ofInt32(data, shapeOr1d(shape, data.length)));
    }

    /** float64 tensor; shape defaults to 1-D. */
    public TensorMessage putFloat64(String name, double[] data, long... shape) {
        return put(name, Tensor.ofFloat64(data, shapeOr1d(shape, data.length)));
    }

    /** float32 tensor; shape defaults to 1-D. */
    public TensorMessage putFloat32(String name, float[] data, long... shape) {
        return put(name, Tensor.ofFloat32(data, shapeOr1d(shape, data.length)));
    }

    /** uint8 tensor; shape defaults to 1-D. */
    public TensorMessage putUInt8(String name, byte[] data, long... shape) {
        return put(name, Tensor.ofUInt8(data, shapeOr1d(shape, data.length)));
    }

    /** UTF-8 text as a 1-D uint8 tensor, the way GiGL ships {@code #SAMPLING_ERROR}. */
    public TensorMessage putString(String name, String text) {
        return putUInt8(name, text.getBytes(StandardCharsets.UTF_8));
    }

    /** The tensor {@code name}, or null. */
    public Tensor get(String name) {
        return tensors.get(name);
    }

    /** The tensor {@code name}; {@code IllegalArgumentException} naming it and the present names if absent. */
    public Tensor require(String name) {
        Tensor t = tensors.get(name);
        if (t == null) {
            throw new IllegalArgumentException("message has no tensor \"" + name + "\"; it has " + tensors.keySet());
        }
        return t;
    }

    /** A uint8 tensor read back as UTF-8 text (see {@link #putString}), or null if absent. */
    public String getString(String name) {
        Tensor t = tensors.get(name);
        return t == null ? null : new String(t.asByteArray(), StandardCharsets.UTF_8);
    }

    public boolean contains(String name) {
        return tensors.containsKey(name);
    }

    /** Tensor names in insertion order (decoded messages: sorted, as in the blob). Unmodifiable view. */
    public Set<String> names() {
        return Collections.unmodifiableSet(tensors.keySet());
    }

    public int size() {
        return tensors.size();
    }

    /** Removes tensor {@code name}; returns it or null. */
    public Tensor remove(String name) {
        return tensors.remove(name);
    }

    /** Equal when both hold the same names with equal tensors, whatever the insertion order. */
    @Override
    public boolean equals(Object o) {
        return o instanceof TensorMessage && tensors.equals(((TensorMessage) o).tensors);
    }

    @Override
    public int hashCode() {
        return tensors.hashCode();
    }

    @Override
    public String toString() {
        return "TensorMessage" + tensors;
    }
}
