package dev.danmakuledger.server;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A room-stream subscriber on a raw socket with a tiny receive buffer that reads nothing until told
 * to: the viewer whose connection cannot keep up.
 */
final class StalledSubscriber implements AutoCloseable {
  private final Socket socket;

  StalledSubscriber(URI base, String room) throws IOException {
    socket = new Socket();
    socket.setReceiveBufferSize(2048);
    socket.connect(new InetSocketAddress(base.getHost(), base.getPort()), 5_000);
    OutputStream out = socket.getOutputStream();
    out.write(
        ("GET /v1/rooms/"
                + room
                + "/stream HTTP/1.0\r\nHost: "
                + base.getHost()
                + "\r\nAccept: text/event-stream\r\n\r\n")
            .getBytes(StandardCharsets.US_ASCII));
    out.flush();
  }

  /**
   * Reads the response (HTTP/1.0: no chunking, the server closes at its end) until the stream ends
   * or a {@code resume} event arrived, and returns its events.
   */
  List<SseEvents.Event> readToEnd() throws IOException {
    socket.setSoTimeout(30_000);
    InputStream in = socket.getInputStream();
    for (String h = line(in); h != null && !h.isEmpty(); h = line(in)) {
      // headers
    }
    List<SseEvents.Event> out = new ArrayList<>();
    String name = "message";
    String id = null;
    String data = null;
    for (String l = line(in); l != null; l = line(in)) {
      if (l.startsWith("event:")) {
        name = l.substring(6).strip();
      } else if (l.startsWith("id:")) {
        id = l.substring(3).strip();
      } else if (l.startsWith("data:")) {
        data = l.substring(5).strip();
      } else if (l.isEmpty() && data != null) {
        out.add(new SseEvents.Event(name, id, data));
        if ("resume".equals(name)) {
          break;
        }
        name = "message";
        data = null;
      }
    }
    return out;
  }

  /** One line without its end, or null at the end of the stream. */
  private static String line(InputStream in) throws IOException {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    int c = in.read();
    if (c == -1) {
      return null;
    }
    for (; c != -1 && c != '\n'; c = in.read()) {
      if (c != '\r') {
        b.write(c);
      }
    }
    return b.toString(StandardCharsets.UTF_8);
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }
}
