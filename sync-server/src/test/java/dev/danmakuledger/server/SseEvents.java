package dev.danmakuledger.server;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/** A room-stream subscriber for tests: every SSE event it reads, with its name and id. */
final class SseEvents implements AutoCloseable {
  /** One event. */
  record Event(String name, String id, String data) {
    long cursor() {
      return Long.parseLong(id);
    }
  }

  private final LinkedBlockingQueue<Event> events = new LinkedBlockingQueue<>();
  private final HttpResponse<Stream<String>> response;

  private SseEvents(HttpResponse<Stream<String>> response) {
    this.response = response;
    Thread reader = new Thread(this::read, "sse-test-reader");
    reader.setDaemon(true);
    reader.start();
  }

  static SseEvents open(HttpClient http, URI base, String room, String lastEventId)
      throws Exception {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(base.resolve("/v1/rooms/" + room + "/stream"))
            .header("Accept", "text/event-stream");
    if (lastEventId != null) {
      b.header("Last-Event-ID", lastEventId);
    }
    return new SseEvents(
        http.sendAsync(b.build(), HttpResponse.BodyHandlers.ofLines()).get(30, TimeUnit.SECONDS));
  }

  private void read() {
    String[] name = {"message"};
    String[] id = {null};
    String[] data = {null};
    try {
      response
          .body()
          .forEach(
              l -> {
                if (l.startsWith("event:")) {
                  name[0] = l.substring(6).strip();
                } else if (l.startsWith("id:")) {
                  id[0] = l.substring(3).strip();
                } else if (l.startsWith("data:")) {
                  data[0] = l.substring(5).strip();
                } else if (l.isEmpty() && data[0] != null) {
                  events.add(new Event(name[0], id[0], data[0]));
                  name[0] = "message";
                  data[0] = null;
                }
              });
    } catch (RuntimeException e) {
      // the test closed the stream
    }
  }

  /** The next {@code n} events, waiting at most a minute in all. */
  List<Event> take(int n) throws InterruptedException {
    return drain(n, Duration.ofSeconds(60));
  }

  /** Up to {@code n} events, as many as arrive within {@code wait}. */
  List<Event> drain(int n, Duration wait) throws InterruptedException {
    long deadline = System.nanoTime() + wait.toNanos();
    List<Event> out = new ArrayList<>();
    while (out.size() < n) {
      Event e = events.poll(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
      if (e == null) {
        break;
      }
      out.add(e);
    }
    return out;
  }

  @Override
  public void close() {
    response.body().close();
  }
}
