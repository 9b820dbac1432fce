package dev.danmakuledger.bench.chaos;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.danmakuledger.protocol.wire.Json;
import dev.danmakuledger.protocol.wire.RoomMessage;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.HttpURLConnection;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A viewer of one room's stream, connected directly to one sync server (not through the load
 * balancer), as an overlay would be: it keeps every {@code message} event it receives and, whenever
 * the stream ends (the instance was killed, cut it off as too slow, or the network broke), it
 * reconnects with {@code Last-Event-ID} set to the last cursor it received — to its own instance,
 * or to the next one when its own refuses the connection (docs/sync-server.md, "Room streams").
 * {@link #stall} makes it stop reading for a while, as a viewer on a stalled network would.
 */
final class StreamSubscriber {
  private static final ObjectMapper JSON =
      Json.mapper().copy().disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

  private final String name;
  private final String room;
  private final List<Integer> ports;
  private final int home;
  private final List<StreamEvent> events = new ArrayList<>();
  private final Thread reader;
  private volatile boolean closed;
  private volatile long stallUntilNanos;
  private volatile HttpURLConnection current;
  private volatile int connectedTo = -1;
  private long connections;
  private long cutOffs;
  private long lastCursor;

  /**
   * @param ports every sync server's port; the subscriber starts on {@code ports.get(home)}
   */
  StreamSubscriber(String name, String room, List<Integer> ports, int home) {
    this.name = name;
    this.room = room;
    this.ports = List.copyOf(ports);
    this.home = home;
    this.reader = new Thread(this::loop, "stream-" + name);
    reader.setDaemon(true);
  }

  void start() {
    reader.start();
  }

  String name() {
    return name;
  }

  String room() {
    return room;
  }

  /** The server index it reads from now, or -1 between connections. */
  int connectedTo() {
    return connectedTo;
  }

  /** Stops reading for {@code millis}; the server's outbox and the TCP buffers fill meanwhile. */
  void stall(long millis) {
    stallUntilNanos = System.nanoTime() + millis * 1_000_000;
  }

  synchronized List<StreamEvent> events() {
    return List.copyOf(events);
  }

  synchronized long lastCursor() {
    return lastCursor;
  }

  /** Connections opened, the first one included. */
  synchronized long connections() {
    return connections;
  }

  /** Times the server ended the stream with a {@code resume} event (too slow, storage down). */
  synchronized long cutOffs() {
    return cutOffs;
  }

  private void loop() {
    int target = home;
    while (!closed) {
      try {
        read(target);
      } catch (IOException e) {
        if (connectedTo < 0) {
          // the instance refused or did not answer: resume on the next one
          target = (target + 1) % ports.size();
        }
      }
      connectedTo = -1;
      if (!closed) {
        pause(200);
      }
    }
  }

  private void read(int target) throws IOException {
    long after;
    synchronized (this) {
      after = lastCursor;
      connections++;
    }
    URI uri =
        URI.create(
            "http://127.0.0.1:"
                + ports.get(target)
                + "/v1/rooms/"
                + URLEncoder.encode(room, StandardCharsets.UTF_8)
                + "/stream");
    HttpURLConnection c = (HttpURLConnection) uri.toURL().openConnection();
    c.setConnectTimeout(2_000);
    // the server sends a comment every 15 s: a silent connection is a dead one
    c.setReadTimeout(40_000);
    c.setRequestProperty("Accept", "text/event-stream");
    if (after > 0) {
      c.setRequestProperty("Last-Event-ID", Long.toString(after));
    }
    current = c;
    try {
      if (c.getResponseCode() != 200) {
        throw new IOException(name + ": stream answered " + c.getResponseCode());
      }
      connectedTo = target;
      try (BufferedReader in =
          new BufferedReader(new InputStreamReader(c.getInputStream(), StandardCharsets.UTF_8))) {
        String event = null;
        String id = null;
        StringBuilder data = new StringBuilder();
        for (String line = in.readLine(); line != null && !closed; line = in.readLine()) {
          waitOutStall();
          if (!line.isEmpty()) {
            if (line.startsWith("event:")) {
              event = line.substring(6).strip();
            } else if (line.startsWith("id:")) {
              id = line.substring(3).strip();
            } else if (line.startsWith("data:")) {
              data.append(line.substring(5).strip());
            }
            continue;
          }
          if ("message".equals(event) && id != null) {
            RoomMessage m = JSON.readValue(data.toString(), RoomMessage.class);
            synchronized (this) {
              long cursor = Long.parseLong(id);
              events.add(new StreamEvent(cursor, m.seq(), m.idempotencyKey()));
              lastCursor = Math.max(lastCursor, cursor);
            }
          } else if ("resume".equals(event)) {
            synchronized (this) {
              cutOffs++;
            }
          }
          event = null;
          id = null;
          data.setLength(0);
        }
      }
    } finally {
      c.disconnect();
    }
  }

  private void waitOutStall() {
    long left;
    while ((left = stallUntilNanos - System.nanoTime()) > 0 && !closed) {
      pause(Math.min(200, left / 1_000_000 + 1));
    }
  }

  private static void pause(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Stops reading and closes the connection; waits up to 5 s for the reader to end. */
  void close() throws InterruptedException {
    closed = true;
    HttpURLConnection c = current;
    if (c != null) {
      c.disconnect();
    }
    reader.interrupt();
    reader.join(5_000);
  }
}
