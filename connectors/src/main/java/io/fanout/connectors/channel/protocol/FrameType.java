package io.fanout.connectors.channel.protocol;

/** The frame types of channel protocol (docs/channel-protocol.md), by their wire code. */
public enum FrameType {
    HELLO(1),
    WELCOME(2),
    FETCH(3),
    MESSAGE(4),
    END_OF_EPOCH(5),
    END_OF_STREAM(6),
    ERROR(7),
    /** Protocol version 3: an idle endpoint is alive (docs/channel-protocol.md, "Liveness"). */
    HEARTBEAT(8);

    private final int code;

    FrameType(int code) {
        this.code = code;
    }

    /** The u8 on the wire. */
    public int code() {
        return code;
    }

    /** The type with wire code {@code code}, or null if none. */
    public static FrameType ofCode(int code) {
        for (FrameType t : values()) {
            if (t.code == code) {
                return t;
            }
        }
        return null;
    }
}
