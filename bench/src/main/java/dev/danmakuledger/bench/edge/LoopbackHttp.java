package dev.danmakuledger.bench.edge;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * The latency benchmark's HTTP/1.1 client: one keep-alive loopback connection, a request written in
 * one piece, the answer read to the end of its {@code Content-Length} body on the same thread. A
 * general client (the JDK's {@code java.net.http.HttpClient} hands each exchange to its selector
 * and worker threads) adds its own scheduling delays to every round trip; on a busy 2-core machine
 * those reach milliseconds at the 99th percentile even for an answer the server computes in
 * microseconds, which would be charged to the agent's ack (docs/benchmarks.md, edge).
 */
final class LoopbackHttp implements AutoCloseable {
  /** Status and body of one answer. */
  record Answer(int status, String body) {}

  private final String host;
  private final Socket socket;
  private final OutputStream out;
  private final InputStream in;

  LoopbackHttp(InetSocketAddress server) throws IOException {
    this.host = server.getAddress().getHostAddress() + ":" + server.getPort();
    this.socket = new Socket(server.getAddress(), server.getPort());
    socket.setTcpNoDelay(true);
    this.out = socket.getOutputStream();
    this.in = new BufferedInputStream(socket.getInputStream());
  }

  Answer post(String path, String json) throws IOException {
    byte[] body = json.getBytes(StandardCharsets.UTF_8);
    byte[] head =
        ("POST "
                + path
                + " HTTP/1.1\r\nHost: "
                + host
                + "\r\nContent-Type: application/json\r\nContent-Length: "
                + body.length
                + "\r\n\r\n")
            .getBytes(StandardCharsets.US_ASCII);
    byte[] request = new byte[head.length + body.length];
    System.arraycopy(head, 0, request, 0, head.length);
    System.arraycopy(body, 0, request, head.length, body.length);
    out.write(request);
    out.flush();
    return read();
  }

  Answer get(String path) throws IOException {
    out.write(
        ("GET " + path + " HTTP/1.1\r\nHost: " + host + "\r\n\r\n")
            .getBytes(StandardCharsets.US_ASCII));
    out.flush();
    return read();
  }

  /** Reads one answer; the server must send a {@code Content-Length} (it does for every route). */
  private Answer read() throws IOException {
    String statusLine = line();
    String[] parts = statusLine.split(" ", 3);
    if (parts.length < 2 || !parts[0].startsWith("HTTP/1.")) {
      throw new IOException("not an HTTP/1.x status line: " + statusLine);
    }
    int status = Integer.parseInt(parts[1]);
    long length = -1;
    for (String h = line(); !h.isEmpty(); h = line()) {
      int colon = h.indexOf(':');
      if (colon > 0
          && h.substring(0, colon).trim().toLowerCase(Locale.ROOT).equals("content-length")) {
        length = Long.parseLong(h.substring(colon + 1).trim());
      }
    }
    if (length < 0) {
      throw new IOException("answer " + status + " without Content-Length");
    }
    byte[] body = in.readNBytes(Math.toIntExact(length));
    if (body.length != length) {
      throw new IOException("answer body: got " + body.length + " bytes, want " + length);
    }
    return new Answer(status, new String(body, StandardCharsets.UTF_8));
  }

  private String line() throws IOException {
    StringBuilder sb = new StringBuilder();
    for (int c = in.read(); c != '\n'; c = in.read()) {
      if (c < 0) {
        throw new IOException("connection closed mid-answer");
      }
      if (c != '\r') {
        sb.append((char) c);
      }
    }
    return sb.toString();
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }
}
