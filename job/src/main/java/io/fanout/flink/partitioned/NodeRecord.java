package io.fanout.flink.partitioned;

/** One node-file row on its way into keyed state (a Flink POJO keyed by {@link #node}). */
public class NodeRecord {
    public long node;
    /** -1 = unlabelled. */
    public int label;
    /** The row's features as stored and shipped ({@code dim} little-endian values in the job's dtype). */
    public byte[] row;

    public NodeRecord() {}

    public NodeRecord(long node, int label, byte[] row) {
        this.node = node;
        this.label = label;
        this.row = row;
    }
}
