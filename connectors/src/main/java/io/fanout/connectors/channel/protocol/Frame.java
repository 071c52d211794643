package io.fanout.connectors.channel.protocol;

import java.util.Arrays;

/** One frame of the channel protocol; one record per {@link FrameType}. */
public sealed interface Frame
        permits Frame.Hello, Frame.Welcome, Frame.Fetch, Frame.Message, Frame.EndOfEpoch, Frame.EndOfStream, Frame.Error, Frame.Heartbeat {

    FrameType type();

    /**
     * Client's first frame: protocol version, access token, the session to resume
     * ({@link ChannelProtocol#NEW_SESSION} for a new one) and, for a data-parallel trainer, its rank
     * and world size ({@link ChannelProtocol#NO_RANK} and 0 for a client that takes every message).
     */
    record Hello(int version, String token, long sessionId, int rank, int worldSize) implements Frame {
        /** A HELLO starting a new session. */
        public Hello(int version, String token) {
            this(version, token, ChannelProtocol.NEW_SESSION);
        }

        /** A HELLO of a client that takes every message (no rank). */
        public Hello(int version, String token, long sessionId) {
            this(version, token, sessionId, ChannelProtocol.NO_RANK, 0);
        }

        public Hello {
            if (version < 0 || version > 0xffff) {
                throw new IllegalArgumentException("version " + version + " is not a u16");
            }
            token = token == null ? "" : token;
        }

        /** Whether the client is one rank of data-parallel trainers (the HELLO carries rank and world size). */
        public boolean ranked() {
            return worldSize != 0;
        }

        @Override
        public FrameType type() {
            return FrameType.HELLO;
        }
    }

    /**
     * Server's answer to HELLO: its version, endpoint index, number of endpoints, the session id the
     * client resumes with after a lost connection, and whether the requested session was resumed.
     */
    record Welcome(int version, int endpointIndex, int numEndpoints, long sessionId, boolean resumed) implements Frame {
        @Override
        public FrameType type() {
            return FrameType.WELCOME;
        }
    }

    /**
     * The client can take {@code credits} more MESSAGE frames (u32) and has consumed the MESSAGE
     * of its session with seq {@code ackedSeq} (0 = acknowledges nothing). Version 3: it takes only
     * messages of epochs up to {@code maxEpoch} until a later FETCH says otherwise
     * ({@link ChannelProtocol#ANY_EPOCH}: any; a version 2 FETCH, without the field, means any).
     */
    record Fetch(long credits, long ackedSeq, int maxEpoch) implements Frame {
        /** Credits only, acknowledging nothing new, any epoch. */
        public Fetch(long credits) {
            this(credits, 0L);
        }

        /** Credits and an ack, any epoch. */
        public Fetch(long credits, long ackedSeq) {
            this(credits, ackedSeq, ChannelProtocol.ANY_EPOCH);
        }

        public Fetch {
            if (credits < 0 || credits > ChannelProtocol.MAX_CREDITS) {
                throw new IllegalArgumentException("credits " + credits + " is not a u32");
            }
        }

        @Override
        public FrameType type() {
            return FrameType.FETCH;
        }
    }

    /** One sampled-subgraph message: its seq within the session, its batch key and the safetensors blob. */
    record Message(long seq, int epoch, int batchId, int numBatches, byte[] payload) implements Frame {
        @Override
        public FrameType type() {
            return FrameType.MESSAGE;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Message m && m.seq == seq && m.epoch == epoch && m.batchId == batchId && m.numBatches == numBatches
                    && Arrays.equals(m.payload, payload);
        }

        @Override
        public int hashCode() {
            return 31 * (31 * (31 * epoch + batchId) + numBatches) + Arrays.hashCode(payload);
        }

        @Override
        public String toString() {
            return "Message[seq=" + seq + ", epoch=" + epoch + ", batchId=" + batchId + ", numBatches=" + numBatches + ", bytes=" + payload.length + "]";
        }
    }

    /** No more messages of {@code epoch} or any earlier epoch will come from this endpoint (cumulative). */
    record EndOfEpoch(int epoch) implements Frame {
        @Override
        public FrameType type() {
            return FrameType.END_OF_EPOCH;
        }
    }

    /** The endpoint's input ended and its buffer is drained. */
    record EndOfStream() implements Frame {
        @Override
        public FrameType type() {
            return FrameType.END_OF_STREAM;
        }
    }

    /** A protocol or server error as text; the sender closes the connection after it. */
    record Error(String text) implements Frame {
        @Override
        public FrameType type() {
            return FrameType.ERROR;
        }
    }

    /**
     * Version 3: the endpoint is alive though it had nothing else to send for its heartbeat interval;
     * clients use it to tell an idle endpoint from a stalled one.
     */
    record Heartbeat() implements Frame {
        @Override
        public FrameType type() {
            return FrameType.HEARTBEAT;
        }
    }
}
