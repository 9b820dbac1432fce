package dev.danmakuledger.bench.ingest;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.Closeable;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Locale;

/**
 * One keep-alive HTTP/1.1 connection (RFC 9112) that its caller's thread writes a request to and
 * reads the reply from, one exchange at a time: what a simulated device pays a batch is one write
 * and the reads of its reply, where the JDK client hands every exchange between its selector thread
 * and its executor's. In a bench whose devices share the cores with the server under test, that
 * difference is CPU the server does not get (docs/benchmarks.md, "live").
 *
 * <p>A request that meets a connection the server closed while it was idle (the reply ends before
 * its first byte) is sent once more on a new connection; any other failure closes the connection
 * and is thrown. A caller may write the request ({@link #send}) and read its reply ({@link
 * #receive}) apart, to keep requests on several connections in flight from one thread. Not
 * thread-safe: one connection for one caller at a time.
 */
final class PlainHttp implements Closeable {
  /** A reply: its status, its {@code Content-Type} (empty without one) and its body. */
  record Response(int status, String contentType, byte[] body) {}

  /** The longest reply body read; a longer one fails the exchange. */
  static final int MAX_BODY = 16 << 20;

  /** The longest status or header line read. */
  static final int MAX_LINE = 8 << 10;

  private final String host;
  private final int port;
  private final int timeoutMillis;
  private Socket socket;
  private InputStream in;
  private OutputStream out;

  /** The request {@link #send} wrote whose reply is not read yet, or null. */
  private byte[] unanswered;

  /** Whether {@link #unanswered} went out on a connection an earlier exchange had used. */
  private boolean unansweredReused;

  /**
   * @param base the server, e.g. {@code http://127.0.0.1:8080} (plain HTTP only)
   * @param timeout the longest a connect or a read of the reply waits
   */
  PlainHttp(URI base, Duration timeout) {
    if (!"http".equals(base.getScheme()) || base.getHost() == null || base.getPort() < 0) {
      throw new IllegalArgumentException("want http://host:port, got " + base);
    }
    this.host = base.getHost();
    this.port = base.getPort();
    this.timeoutMillis = Math.toIntExact(timeout.toMillis());
  }

  /** {@code POST path} with {@code body} of {@code contentType}; the reply once read whole. */
  Response post(String path, String contentType, byte[] body) throws IOException {
    send(path, contentType, body);
    return receive();
  }

  /**
   * Writes {@code POST path} with {@code body} of {@code contentType} and returns without reading
   * the reply, which {@link #receive} reads: the caller may meanwhile write to other connections.
   *
   * @param fields further header fields, each {@code "Name: value"}
   * @throws IllegalStateException when the reply of the last request was not read yet
   */
  void send(String path, String contentType, byte[] body, String... fields) throws IOException {
    if (unanswered != null) {
      throw new IllegalStateException("the reply of the last request was not read yet");
    }
    byte[] head =
        ("POST "
                + path
                + " HTTP/1.1\r\nHost: "
                + host
                + ":"
                + port
                + "\r\nContent-Type: "
                + contentType
                + "\r\nContent-Length: "
                + body.length
                + "\r\n"
                + (fields.length == 0 ? "" : String.join("\r\n", fields) + "\r\n")
                + "\r\n")
            .getBytes(StandardCharsets.ISO_8859_1);
    byte[] request = new byte[head.length + body.length];
    System.arraycopy(head, 0, request, 0, head.length);
    System.arraycopy(body, 0, request, head.length, body.length);
    boolean reused = socket != null;
    try {
      write(request);
    } catch (IdleClosedException e) {
      close();
      if (!reused) {
        throw e;
      }
      reused = false;
      try {
        write(request);
      } catch (IOException again) {
        close();
        throw again;
      }
    }
    unanswered = request;
    unansweredReused = reused;
  }

  /**
   * The reply to the request {@link #send} wrote, once read whole.
   *
   * @throws IllegalStateException when no request awaits its reply
   */
  Response receive() throws IOException {
    byte[] request = unanswered;
    if (request == null) {
      throw new IllegalStateException("no request awaits its reply");
    }
    unanswered = null;
    try {
      return read();
    } catch (IdleClosedException e) {
      close();
      if (!unansweredReused) {
        throw e;
      }
      try {
        write(request);
        return read();
      } catch (IOException | RuntimeException again) {
        close();
        throw again;
      }
    } catch (IOException | RuntimeException e) {
      close();
      throw e;
    }
  }

  /**
   * The request could not be written or its reply ended before its first byte: on a connection that
   * was idle, the server had closed it.
   */
  static final class IdleClosedException extends EOFException {
    private static final long serialVersionUID = 1L;

    IdleClosedException(IOException cause) {
      super("the connection was closed before the reply began");
      initCause(cause);
    }
  }

  private void write(byte[] request) throws IOException {
    if (socket == null) {
      Socket s = new Socket();
      s.setTcpNoDelay(true);
      s.setSoTimeout(timeoutMillis);
      s.connect(new InetSocketAddress(host, port), timeoutMillis);
      socket = s;
      in = new BufferedInputStream(s.getInputStream(), 16 << 10);
      out = s.getOutputStream();
    }
    try {
      out.write(request);
      out.flush();
    } catch (IOException e) {
      throw new IdleClosedException(e);
    }
  }

  private Response read() throws IOException {
    int first;
    try {
      first = in.read();
    } catch (SocketTimeoutException e) {
      throw e;
    } catch (IOException e) {
      throw new IdleClosedException(e);
    }
    if (first < 0) {
      throw new IdleClosedException(null);
    }
    String statusLine = (char) first + line();
    String[] parts = statusLine.split(" ", 3);
    if (parts.length < 2 || !parts[0].startsWith("HTTP/1.")) {
      throw new IOException("not an HTTP/1.x status line: " + statusLine);
    }
    int status;
    try {
      status = Integer.parseInt(parts[1]);
    } catch (NumberFormatException e) {
      throw new IOException("not an HTTP/1.x status line: " + statusLine, e);
    }
    long length = -1;
    boolean chunked = false;
    boolean closeAfter = parts[0].equals("HTTP/1.0");
    String contentType = "";
    for (String h = line(); !h.isEmpty(); h = line()) {
      int colon = h.indexOf(':');
      if (colon <= 0) {
        throw new IOException("not a header line: " + h);
      }
      String name = h.substring(0, colon).trim().toLowerCase(Locale.ROOT);
      String value = h.substring(colon + 1).trim();
      switch (name) {
        case "content-length" -> length = parseLength(value);
        case "transfer-encoding" -> chunked = value.toLowerCase(Locale.ROOT).endsWith("chunked");
        case "connection" -> closeAfter = value.equalsIgnoreCase("close");
        case "content-type" -> contentType = value;
        default -> {}
      }
    }
    byte[] reply;
    if (chunked) {
      reply = chunks();
    } else if (length >= 0) {
      reply = in.readNBytes((int) length);
      if (reply.length != length) {
        throw new EOFException("reply body ended after " + reply.length + " of " + length);
      }
    } else {
      reply = untilEnd();
      closeAfter = true;
    }
    if (closeAfter) {
      close();
    }
    return new Response(status, contentType, reply);
  }

  private static long parseLength(String value) throws IOException {
    long length;
    try {
      length = Long.parseLong(value);
    } catch (NumberFormatException e) {
      throw new IOException("Content-Length: got " + value, e);
    }
    if (length < 0 || length > MAX_BODY) {
      throw new IOException("Content-Length: got " + value + ", want 0.." + MAX_BODY);
    }
    return length;
  }

  private byte[] chunks() throws IOException {
    ByteArrayOutputStream body = new ByteArrayOutputStream();
    while (true) {
      String sizeLine = line();
      int semi = sizeLine.indexOf(';');
      String hex = (semi >= 0 ? sizeLine.substring(0, semi) : sizeLine).trim();
      int size;
      try {
        size = Integer.parseInt(hex, 16);
      } catch (NumberFormatException e) {
        throw new IOException("chunk size: got " + sizeLine, e);
      }
      if (size < 0 || body.size() + (long) size > MAX_BODY) {
        throw new IOException("chunked reply longer than " + MAX_BODY + " bytes");
      }
      if (size == 0) {
        for (String trailer = line(); !trailer.isEmpty(); trailer = line()) {
          // trailers are read and dropped
        }
        return body.toByteArray();
      }
      byte[] chunk = in.readNBytes(size);
      if (chunk.length != size) {
        throw new EOFException("chunk ended after " + chunk.length + " of " + size + " bytes");
      }
      body.write(chunk);
      if (!line().isEmpty()) {
        throw new IOException("chunk not followed by CRLF");
      }
    }
  }

  private byte[] untilEnd() throws IOException {
    byte[] body = in.readNBytes(MAX_BODY + 1);
    if (body.length > MAX_BODY) {
      throw new IOException("reply longer than " + MAX_BODY + " bytes");
    }
    return body;
  }

  /** One line without its CRLF (a bare LF ends one too). */
  private String line() throws IOException {
    StringBuilder b = new StringBuilder();
    while (true) {
      int c = in.read();
      if (c < 0) {
        throw new EOFException("reply ended inside a line");
      }
      if (c == '\n') {
        int n = b.length();
        return n > 0 && b.charAt(n - 1) == '\r' ? b.substring(0, n - 1) : b.toString();
      }
      if (b.length() >= MAX_LINE) {
        throw new IOException("reply line longer than " + MAX_LINE + " characters");
      }
      b.append((char) c);
    }
  }

  /** Closes the connection; the next request opens a new one. */
  @Override
  public void close() {
    Socket s = socket;
    socket = null;
    unanswered = null;
    in = null;
    out = null;
    if (s != null) {
      try {
        s.close();
      } catch (IOException ignored) {
        // closing a connection given up on
      }
    }
  }
}
