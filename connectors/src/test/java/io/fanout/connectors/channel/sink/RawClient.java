package io.fanout.connectors.channel.sink;

import io.fanout.connectors.channel.protocol.ChannelProtocol;
import io.fanout.connectors.channel.protocol.Frame;
import io.fanout.connectors.channel.protocol.FrameReader;
import io.fanout.connectors.channel.protocol.FrameWriter;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;

/** A hand-driven protocol client for tests: sends exactly the frames (or bytes) a test asks for. */
final class RawClient implements AutoCloseable {
    final Socket socket;
    final FrameReader reader;
    final FrameWriter writer;
    final OutputStream out;

    RawClient(InetSocketAddress address) throws IOException {
        socket = new Socket();
        socket.connect(address, 5_000);
        socket.setSoTimeout(10_000);
        out = socket.getOutputStream();
        reader = new FrameReader(socket.getInputStream(), ChannelProtocol.DEFAULT_MAX_FRAME_BYTES);
        writer = new FrameWriter(out);
    }

    /** The token of the test writers. */
    static final String TOKEN = "t0k3n";

    /** Session id from WELCOME. */
    long session;
    boolean resumed;

    /** Connects, sends HELLO (this protocol version) with the test token and expects WELCOME. */
    static RawClient handshake(InetSocketAddress address) throws IOException {
        return handshake(address, ChannelProtocol.NEW_SESSION);
    }

    /** Connects, sends HELLO (this protocol version) resuming {@code session} and expects WELCOME. */
    static RawClient handshake(InetSocketAddress address, long session) throws IOException {
        RawClient c = new RawClient(address);
        c.send(new Frame.Hello(ChannelProtocol.VERSION, TOKEN, session));
        Frame f = c.read();
        if (!(f instanceof Frame.Welcome w)) {
            throw new IOException("expected WELCOME, got " + f);
        }
        c.session = w.sessionId();
        c.resumed = w.resumed();
        return c;
    }

    /** Connects and sends HELLO as data-parallel {@code rank} of {@code worldSize}; returns the answer (WELCOME or ERROR). */
    static RawClient ranked(InetSocketAddress address, int rank, int worldSize) throws IOException {
        RawClient c = new RawClient(address);
        c.send(new Frame.Hello(ChannelProtocol.VERSION, TOKEN, ChannelProtocol.NEW_SESSION, rank, worldSize));
        return c;
    }

    /** Reads the next MESSAGE, skipping END_OF_EPOCH frames. */
    Frame.Message message() throws IOException {
        while (true) {
            Frame f = read();
            if (f instanceof Frame.Message m) {
                return m;
            }
            if (!(f instanceof Frame.EndOfEpoch)) {
                throw new IOException("expected MESSAGE, got " + f);
            }
        }
    }

    void send(Frame f) throws IOException {
        writer.write(f);
    }

    void sendRaw(byte[] bytes) throws IOException {
        out.write(bytes);
        out.flush();
    }

    /** The next frame other than HEARTBEAT (which a slow test may get at any point), null at the end. */
    Frame read() throws IOException {
        Frame f;
        do {
            f = reader.read();
        } while (f instanceof Frame.Heartbeat);
        return f;
    }

    /**
     * The next frame, HEARTBEAT included. A HEARTBEAT is what the endpoint sends when, deciding after everything it
     * sent before, it had nothing else to send: a test's proof that nothing more came, without waiting a while.
     */
    Frame next() throws IOException {
        return reader.read();
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
