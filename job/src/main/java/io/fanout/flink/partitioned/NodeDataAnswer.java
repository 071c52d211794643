package io.fanout.flink.partitioned;

/**
 * The features and labels of one {@link NodeDataRequest}'s nodes, back to their batch as one record (a Flink POJO
 * keyed by {@link #batchKey}): node {@code i} goes to position {@code positions[i]} of the batch's {@code ids}, its
 * label is {@code labels[i]} and its row {@code rows[i * rowBytes .. (i + 1) * rowBytes)} (every row of a node file
 * has the same length).
 */
public class NodeDataAnswer {
    public long batchKey;
    public int[] positions;
    public int[] labels;
    public int rowBytes;
    public byte[] rows;

    public NodeDataAnswer() {}

    public NodeDataAnswer(long batchKey, int[] positions, int[] labels, int rowBytes, byte[] rows) {
        this.batchKey = batchKey;
        this.positions = positions;
        this.labels = labels;
        this.rowBytes = rowBytes;
        this.rows = rows;
    }

    /** The nodes answered. */
    public int size() {
        return positions.length;
    }

    /** Copies node {@code i}'s row into {@code body} at its position (rows of {@code rowBytes} each). */
    void copyRow(int i, byte[] body) {
        System.arraycopy(rows, i * rowBytes, body, positions[i] * rowBytes, rowBytes);
    }

    /** Puts every answered node's row into {@code body} and its label into {@code labels}, at its position. */
    void placeInto(byte[] body, long[] labels) {
        for (int i = 0; i < positions.length; i++) {
            copyRow(i, body);
            labels[positions[i]] = this.labels[i];
        }
    }
}
