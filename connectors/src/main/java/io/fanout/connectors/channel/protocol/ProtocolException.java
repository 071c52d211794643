package io.fanout.connectors.channel.protocol;

import java.io.IOException;

/** The peer broke the channel protocol (garbage, oversized frame, wrong version, unexpected frame). */
public class ProtocolException extends IOException {
    public ProtocolException(String message) {
        super(message);
    }
}
