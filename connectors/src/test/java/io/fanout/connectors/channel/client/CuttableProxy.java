package io.fanout.connectors.channel.client;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** A loopback TCP forwarder whose connections a test can cut at once, like a killed network path. */
final class CuttableProxy implements AutoCloseable {
    private final ServerSocket server;
    private final InetSocketAddress target;
    private final List<Socket> open = new CopyOnWriteArrayList<>();
    volatile int accepted;

    CuttableProxy(InetSocketAddress target) throws IOException {
        this.target = target;
        this.server = new ServerSocket(0, 16, java.net.InetAddress.getLoopbackAddress());
        Thread t = new Thread(this::acceptLoop, "proxy-accept");
        t.setDaemon(true);
        t.start();
    }

    InetSocketAddress address() {
        return new InetSocketAddress("127.0.0.1", server.getLocalPort());
    }

    private void acceptLoop() {
        while (!server.isClosed()) {
            try {
                Socket in = server.accept();
                Socket out = new Socket(target.getAddress(), target.getPort());
                open.add(in);
                open.add(out);
                accepted++;
                pump(in, out);
                pump(out, in);
            } catch (IOException e) {
                return;
            }
        }
    }

    private static void pump(Socket from, Socket to) {
        Thread t = new Thread(() -> {
            byte[] buf = new byte[8192];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                int n;
                while ((n = in.read(buf)) >= 0) {
                    out.write(buf, 0, n);
                }
            } catch (IOException ignored) {
                // cut
            } finally {
                try {
                    to.shutdownOutput();
                } catch (IOException ignored) {
                    // already closed
                }
            }
        }, "proxy-pump");
        t.setDaemon(true);
        t.start();
    }

    /** Resets every open connection (both sides). */
    void cutAll() throws IOException {
        for (Socket s : open) {
            try {
                s.setSoLinger(true, 0);
            } catch (IOException ignored) {
                // already closed by its pump
            }
            s.close();
        }
        open.clear();
    }

    @Override
    public void close() throws IOException {
        server.close();
        cutAll();
    }
}
