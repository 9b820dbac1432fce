package dev.danmakuledger.server;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;

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
                + "/stream HTTP/1.1\r\nHost: "
                + base.getHost()
                + "\r\nAccept: text/event-stream\r\n\r\n")
            .getBytes(StandardCharsets.US_ASCII));
    out.flush();
  }

  /** Reads the whole response until the server closes it, and returns its events. */
  List<SseEvents.Event> readToEnd() throws IOException {
    socket.setSoTimeout(60_000);
    InputStream in = socket.getInputStream();
    boolean chunked = false;
    for (String h = line(in); !h.isEmpty(); h = line(in)) {
      if (h.toLowerCase(Locale.ROOT).startsWith("transfer-encoding:") && h.contains("chunked")) {
        chunked = true;
      }
    }
    ByteArrayOutputStream body = new ByteArrayOutputStream();
    if (chunked) {
      for (int size = chunkSize(line(in)); size > 0; size = chunkSize(line(in))) {
        body.write(in.readNBytes(size));
        line(in);
      }
    } else {
      in.transferTo(body);
    }
    return SseEvents.parse(new ByteArrayInputStream(body.toByteArray()));
  }

  /** A chunk-size line; 0 (the end) when the connection ended without the last chunk. */
  private static int chunkSize(String line) {
    String hex = line.strip();
    int semi = hex.indexOf(';');
    return hex.isEmpty() ? 0 : Integer.parseInt(semi < 0 ? hex : hex.substring(0, semi), 16);
  }

  private static String line(InputStream in) throws IOException {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    for (int c = in.read(); c != -1 && c != '\n'; c = in.read()) {
      if (c != '\r') {
        b.write(c);
      }
    }
    return b.toString(StandardCharsets.US_ASCII);
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }
}
