package dev.danmakuledger.bench.chaos;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The harness's own Redis client for administrative commands on the redis-servers it owns ({@code
 * BGSAVE}, {@code INFO}, {@code REPLICAOF}, {@code SET} of a room counter): one short connection
 * per command, speaking RESP2 (https://redis.io/docs/reference/protocol-spec/), so it bypasses the
 * proxy the sync servers go through and never competes with their connections.
 */
final class RedisAdmin {
  private RedisAdmin() {}

  /**
   * Runs one command on {@code 127.0.0.1:port}.
   *
   * @return a String (simple or bulk string, null for a nil bulk), a Long or a List of those
   * @throws IOException when Redis cannot be reached or answers with an error
   */
  static Object call(int port, String... args) throws IOException {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress("127.0.0.1", port), 2_000);
      s.setSoTimeout(10_000);
      OutputStream out = s.getOutputStream();
      StringBuilder req = new StringBuilder().append('*').append(args.length).append("\r\n");
      for (String a : args) {
        byte[] b = a.getBytes(StandardCharsets.UTF_8);
        req.append('$').append(b.length).append("\r\n").append(a).append("\r\n");
      }
      out.write(req.toString().getBytes(StandardCharsets.UTF_8));
      out.flush();
      InputStream in = new BufferedInputStream(s.getInputStream());
      return read(in, String.join(" ", args));
    }
  }

  /**
   * {@code BGSAVE} on {@code port}, waiting until the snapshot is on disk.
   *
   * @throws IOException when the save fails or does not finish within 30 s
   */
  static void bgsave(int port) throws IOException, InterruptedException {
    String before = infoField(info(port, "persistence"), "rdb_last_save_time");
    call(port, "BGSAVE");
    long deadline = System.nanoTime() + 30_000_000_000L;
    while (true) {
      String info = info(port, "persistence");
      if ("0".equals(infoField(info, "rdb_bgsave_in_progress"))
          && !String.valueOf(before).equals(infoField(info, "rdb_last_save_time"))) {
        if (!"ok".equals(infoField(info, "rdb_last_bgsave_status"))) {
          throw new IOException("BGSAVE on redis :" + port + " failed; see its log");
        }
        return;
      }
      if (System.nanoTime() > deadline) {
        throw new IOException("BGSAVE on redis :" + port + " did not finish within 30 s");
      }
      Thread.sleep(50);
    }
  }

  /**
   * Waits until {@code child} answers on {@code port}: a redis-server there whose {@code INFO
   * server} names the child's process id. Fails at once when the child exits (a port it could not
   * bind, say) or another process answers on the port, with the tail of the child's log.
   */
  static void awaitServing(Child child, int port, Duration timeout)
      throws IOException, InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      if (!child.alive()) {
        throw new IOException(
            child.name()
                + " exited before serving :"
                + port
                + "; its log ends:\n"
                + child.logTail(10));
      }
      String pid = null;
      try {
        pid = infoField(info(port, "server"), "process_id");
      } catch (IOException notYet) {
        // not listening yet, or not answering yet
      }
      if (pid != null) {
        if (pid.equals(Long.toString(child.pid()))) {
          return;
        }
        throw new IOException(
            "another redis-server (pid " + pid + ") answers on :" + port + ", not " + child.name());
      }
      if (System.nanoTime() > deadline) {
        throw new IOException(
            child.name()
                + " did not serve :"
                + port
                + " within "
                + timeout
                + "; its log ends:\n"
                + child.logTail(10));
      }
      Thread.sleep(50);
    }
  }

  /** {@code INFO section} as one string. */
  static String info(int port, String section) throws IOException {
    return String.valueOf(call(port, "INFO", section));
  }

  /** The value of {@code field} in an {@code INFO} text, or null. */
  static String infoField(String info, String field) {
    for (String line : info.split("\r\n")) {
      if (line.startsWith(field + ":")) {
        return line.substring(field.length() + 1).strip();
      }
    }
    return null;
  }

  private static Object read(InputStream in, String command) throws IOException {
    int type = in.read();
    String line = line(in);
    switch (type) {
      case '+' -> {
        return line;
      }
      case '-' -> throw new IOException("redis refused " + command + ": " + line);
      case ':' -> {
        return Long.parseLong(line);
      }
      case '$' -> {
        int n = Integer.parseInt(line);
        if (n < 0) {
          return null;
        }
        byte[] b = in.readNBytes(n + 2);
        if (b.length != n + 2) {
          throw new IOException("redis: reply to " + command + " cut short");
        }
        return new String(b, 0, n, StandardCharsets.UTF_8);
      }
      case '*' -> {
        int n = Integer.parseInt(line);
        List<Object> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
          out.add(read(in, command));
        }
        return out;
      }
      default -> throw new IOException("redis: got reply type " + type + " to " + command);
    }
  }

  private static String line(InputStream in) throws IOException {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    int c;
    while ((c = in.read()) >= 0) {
      if (c == '\r') {
        in.read();
        return b.toString(StandardCharsets.UTF_8);
      }
      b.write(c);
    }
    throw new IOException("redis: connection closed mid-reply");
  }
}
