package io.fanout.features;

import java.util.Objects;

/**
 * Immutable per-node feature rows and labels, indexed by node index (see {@code io.fanout.graph.NodeIdMap}):
 * the store messages take their {@code nfeats}/{@code nlabels} from.
 *
 * <p>Rows are kept as little-endian bytes in the configured {@link FeatureDType} ({@code dim * dtype.bytes()} a
 * row), in pages of whole rows so a store may exceed one Java array; a gather is one array copy per row, and the
 * gathered bytes are the message tensor as they are. Labels are one {@code int} a node (-1 = unlabelled).
 * Heap: {@code bytes-per-value x dim} per node, plus 4 per node for labels and 4 per node when the node file
 * was not in index order.
 */
public final class NodeFeatures {
    /** Largest page: 1 GiB of whole rows. */
    static final int PAGE_BYTES = 1 << 30;

    private final int numNodes;
    private final int dim;
    private final FeatureDType dtype;
    private final int rowBytes;
    private final int rowsPerPage;
    private final byte[][] pages;
    /** Stored row of each node index, or null when row i is node i. */
    private final int[] rowOf;
    /** Label per node index, or null when the node file has no label column. */
    private final int[] labels;
    /** uint8 dequantisation per column (value = offset + scale * q), else null. */
    private final float[] scale;
    private final float[] offset;
    /** Largest |stored - read| over every value (0 for float32). */
    private final double maxError;

    NodeFeatures(int numNodes, int dim, FeatureDType dtype, byte[][] pages, int rowsPerPage, int[] rowOf,
            int[] labels, float[] scale, float[] offset, double maxError) {
        this.numNodes = numNodes;
        this.dim = dim;
        this.dtype = Objects.requireNonNull(dtype, "dtype");
        this.rowBytes = dim * dtype.bytes();
        this.pages = pages;
        this.rowsPerPage = rowsPerPage;
        this.rowOf = rowOf;
        this.labels = labels;
        this.scale = scale;
        this.offset = offset;
        this.maxError = maxError;
    }

    /** Rows of {@code rowBytes} bytes per page, at least one. */
    static int rowsPerPage(int rowBytes) {
        return rowBytes == 0 ? PAGE_BYTES : Math.max(1, PAGE_BYTES / rowBytes);
    }

    public int numNodes() {
        return numNodes;
    }

    /** Features per node (0 when the node file has labels only). */
    public int dim() {
        return dim;
    }

    public FeatureDType dtype() {
        return dtype;
    }

    public boolean hasFeatures() {
        return dim > 0;
    }

    public boolean hasLabels() {
        return labels != null;
    }

    /** The label of node index {@code node}; -1 = unlabelled. */
    public int label(int node) {
        return labels[node];
    }

    /** Per-column scale of uint8 values (value = offset + scale * q), or null for other dtypes; read-only. */
    public float[] scale() {
        return scale;
    }

    /** Per-column offset of uint8 values, or null for other dtypes; read-only. */
    public float[] offset() {
        return offset;
    }

    /** Largest absolute difference between a stored value (dequantised) and the value read; 0 for float32. */
    public double maxError() {
        return maxError;
    }

    /**
     * The feature rows of {@code nodes[0..n)} as one little-endian {@code [n, dim]} tensor body in
     * {@link #dtype()}, ready to ship.
     */
    public byte[] gatherRows(int[] nodes, int n) {
        byte[] out = new byte[Math.multiplyExact(n, rowBytes)];
        for (int i = 0; i < n; i++) {
            int row = rowOf == null ? nodes[i] : rowOf[nodes[i]];
            System.arraycopy(pages[row / rowsPerPage], (row % rowsPerPage) * rowBytes, out, i * rowBytes, rowBytes);
        }
        return out;
    }

    /** The labels of {@code nodes[0..n)}. */
    public long[] gatherLabels(int[] nodes, int n) {
        long[] out = new long[n];
        for (int i = 0; i < n; i++) {
            out[i] = labels[nodes[i]];
        }
        return out;
    }

    /** Feature {@code column} of node index {@code node} as stored, dequantised to float (for checks and tests). */
    public float value(int node, int column) {
        int row = rowOf == null ? node : rowOf[node];
        byte[] page = pages[row / rowsPerPage];
        int at = (row % rowsPerPage) * rowBytes + column * dtype.bytes();
        switch (dtype) {
            case FLOAT16:
                return Float16.toFloat((short) ((page[at] & 0xff) | (page[at + 1] << 8)));
            case UINT8:
                return offset[column] + scale[column] * (page[at] & 0xff);
            case FLOAT32:
            default:
                return Float.intBitsToFloat((page[at] & 0xff) | (page[at + 1] & 0xff) << 8 | (page[at + 2] & 0xff) << 16
                        | (page[at + 3] & 0xff) << 24);
        }
    }

    /**
     * One row of feature values as stored and shipped: little-endian {@code dtype} values, the bytes
     * {@link NodeFileReader.NodeRows#build} stores for the same values (uint8: {@code q = round((v - offset) /
     * scale)} clamped to [0, 255], 0 where the scale is 0, with the per-column {@code scale} and {@code offset}
     * of the whole file; null for other dtypes).
     */
    public static byte[] encodeRow(float[] values, FeatureDType dtype, float[] scale, float[] offset) {
        byte[] out = new byte[values.length * dtype.bytes()];
        int k = 0;
        for (int c = 0; c < values.length; c++) {
            float v = values[c];
            switch (dtype) {
                case FLOAT16: {
                    short h = Float16.fromFloat(v);
                    out[k++] = (byte) h;
                    out[k++] = (byte) (h >> 8);
                    break;
                }
                case UINT8: {
                    int q = scale[c] == 0f ? 0 : Math.round((v - offset[c]) / scale[c]);
                    out[k++] = (byte) Math.max(0, Math.min(255, q));
                    break;
                }
                case FLOAT32:
                default: {
                    int bits = Float.floatToRawIntBits(v);
                    out[k++] = (byte) bits;
                    out[k++] = (byte) (bits >> 8);
                    out[k++] = (byte) (bits >> 16);
                    out[k++] = (byte) (bits >> 24);
                }
            }
        }
        return out;
    }

    /**
     * The uint8 per-column scale of a file whose columns span {@code [min, max]}: {@code (max - min) / 255}, as
     * {@link NodeFileReader.NodeRows#build} computes it (the offset is {@code min}).
     */
    public static float[] uint8Scale(float[] min, float[] max) {
        float[] scale = new float[min.length];
        for (int c = 0; c < min.length; c++) {
            scale[c] = (max[c] - min[c]) / 255f;
        }
        return scale;
    }

    /** Bytes per stored feature value. */
    public int bytesPerValue() {
        return dtype.bytes();
    }

    /** Heap bytes of the rows, labels and index (array headers included). */
    public long heapBytes() {
        long bytes = 64;
        for (byte[] page : pages) {
            bytes += 16 + page.length;
        }
        if (rowOf != null) {
            bytes += 16 + 4L * rowOf.length;
        }
        if (labels != null) {
            bytes += 16 + 4L * labels.length;
        }
        if (scale != null) {
            bytes += 32 + 8L * scale.length;
        }
        return bytes;
    }

    @Override
    public String toString() {
        return "NodeFeatures{nodes=" + numNodes + ", dim=" + dim + ", dtype=" + dtype.optionValue() + ", labels="
                + hasLabels() + "}";
    }
}
