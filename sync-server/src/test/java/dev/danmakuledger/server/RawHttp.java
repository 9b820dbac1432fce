package dev.danmakuledger.server;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * One HTTP/1.1 exchange over a plain socket, byte for byte: for requests no well-behaved client
 * sends (odd methods, raw request targets, oversized headers) and answers whose bytes matter.
 */
final class RawHttp {
  private RawHttp() {}

  /** A reply: status, head (header lines, lower-cased names) and the raw body bytes. */
  record Reply(int status, String head, byte[] body) {
    String header(String name) {
      String want = name.toLowerCase(Locale.ROOT) + ":";
      for (String line : head.split("\r\n")) {
        if (line.toLowerCase(Locale.ROOT).startsWith(want)) {
          return line.substring(want.length()).trim();
        }
      }
      return null;
    }

    String text() {
      return new String(body, StandardCharsets.UTF_8);
    }

    @Override
    public String toString() {
      return status + " " + text();
    }
  }

  /** Sends {@code method target} with {@code extraHeaders} (CRLF-terminated lines) and no body. */
  static Reply send(URI base, String method, String target, String extraHeaders) {
    String req =
        method
            + " "
            + target
            + " HTTP/1.1\r\nHost: 127.0.0.1:"
            + base.getPort()
            + "\r\n"
            + extraHeaders
            + "Connection: close\r\n\r\n";
    return exchange(base, req.getBytes(StandardCharsets.UTF_8));
  }

  /** Writes {@code request} as is and reads the answer until the server closes. */
  static Reply exchange(URI base, byte[] request) {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress(base.getHost(), base.getPort()), 5_000);
      s.setSoTimeout(15_000);
      OutputStream out = s.getOutputStream();
      out.write(request);
      out.flush();
      ByteArrayOutputStream got = new ByteArrayOutputStream();
      InputStream in = s.getInputStream();
      in.transferTo(got);
      byte[] all = got.toByteArray();
      String text = new String(all, StandardCharsets.ISO_8859_1);
      int end = text.indexOf("\r\n\r\n");
      if (end < 0) {
        throw new IllegalStateException("no complete answer: got " + text);
      }
      String head = text.substring(0, end);
      int status = Integer.parseInt(head.substring(9, 12));
      byte[] body = new byte[all.length - end - 4];
      System.arraycopy(all, end + 4, body, 0, body.length);
      if ("chunked".equalsIgnoreCase(new Reply(status, head, body).header("Transfer-Encoding"))) {
        body = dechunk(body);
      }
      return new Reply(status, head, body);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static byte[] dechunk(byte[] chunked) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    int i = 0;
    while (i < chunked.length) {
      int lineEnd = i;
      while (lineEnd + 1 < chunked.length
          && !(chunked[lineEnd] == '\r' && chunked[lineEnd + 1] == '\n')) {
        lineEnd++;
      }
      String sizeText = new String(chunked, i, lineEnd - i, StandardCharsets.US_ASCII).trim();
      int size = Integer.parseInt(sizeText.split(";")[0], 16);
      if (size == 0) {
        break;
      }
      out.write(chunked, lineEnd + 2, size);
      i = lineEnd + 2 + size + 2;
    }
    return out.toByteArray();
  }
}
