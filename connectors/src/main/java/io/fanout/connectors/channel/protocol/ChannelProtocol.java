package io.fanout.connectors.channel.protocol;

/** Constants of the channel protocol (docs/channel-protocol.md). */
public final class ChannelProtocol {
    private ChannelProtocol() {}

    /**
     * The protocol version this code speaks: 3 adds HEARTBEAT frames from idle endpoints, so clients
     * can bound how long they wait on a stalled one.
     */
    public static final int VERSION = 3;
    /**
     * The oldest client version an endpoint still serves (without heartbeats, which a version 2
     * client would take for garbage); version 1 is refused with ERROR. Registry files carry it as
     * their {@code version}, so version 2 clients reading the registry keep working.
     */
    public static final int MIN_VERSION = 2;
    /** Default receive limit for one frame (length field value), 256 MiB. */
    public static final int DEFAULT_MAX_FRAME_BYTES = 256 << 20;
    /** Bytes of a MESSAGE frame before the blob: u32 length, u8 type, u64 seq, i32 epoch, batch_id, num_batches. */
    public static final int MESSAGE_HEADER_BYTES = 4 + 1 + 8 + 12;
    /** Body bytes of a MESSAGE frame before the blob. */
    public static final int MESSAGE_BODY_HEAD_BYTES = 8 + 12;
    /** Largest credit count a FETCH can carry (u32). */
    public static final long MAX_CREDITS = 0xffff_ffffL;
    /** FETCH max_epoch of a client that takes messages of any epoch (version 2 FETCH frames mean it). */
    public static final int ANY_EPOCH = Integer.MAX_VALUE;
    /** HELLO rank of a client that is no data-parallel rank: it takes every message (work sharing). */
    public static final int NO_RANK = -1;
    /** Session id a client sends in HELLO to start a new session. */
    public static final long NEW_SESSION = 0L;
}
