package dev.danmakuledger.bench.e2e;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.danmakuledger.protocol.wire.Json;
import dev.danmakuledger.protocol.wire.RoomMessage;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import okhttp3.Call;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;

/** A subscriber of a room's SSE stream that records every {@code message} event. */
final class SseCollector implements AutoCloseable {
  private final ObjectMapper json =
      Json.mapper().copy().disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
  private final BlockingQueue<RoomMessage> events = new LinkedBlockingQueue<>();
  private final List<RoomMessage> all = new ArrayList<>();
  private final Call call;
  private final Thread reader;

  SseCollector(OkHttpClient http, String url) {
    OkHttpClient streaming =
        http.newBuilder().readTimeout(Duration.ZERO).callTimeout(Duration.ZERO).build();
    call =
        streaming.newCall(
            new Request.Builder().url(url).header("Accept", "text/event-stream").build());
    reader = new Thread(this::read, "sse-collector");
    reader.setDaemon(true);
    reader.start();
  }

  private void read() {
    try (Response r = call.execute();
        BufferedReader in =
            new BufferedReader(
                new InputStreamReader(r.body().byteStream(), StandardCharsets.UTF_8))) {
      String event = null;
      StringBuilder data = new StringBuilder();
      for (String line = in.readLine(); line != null; line = in.readLine()) {
        if (line.isEmpty()) {
          if ("message".equals(event) && data.length() > 0) {
            events.add(json.readValue(data.toString(), RoomMessage.class));
          }
          event = null;
          data.setLength(0);
        } else if (line.startsWith("event:")) {
          event = line.substring(6).strip();
        } else if (line.startsWith("data:")) {
          data.append(line.substring(5).strip());
        }
      }
    } catch (IOException e) {
      // cancelled by close(), or the server went away: the test sees what arrived
    }
  }

  /** Waits until an event with {@code seq} arrived; returns every event so far, in order. */
  List<RoomMessage> awaitSeq(long seq, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (all.stream().noneMatch(m -> m.seq() == seq)) {
      long left = deadline - System.nanoTime();
      RoomMessage m = left <= 0 ? null : events.poll(left, TimeUnit.NANOSECONDS);
      if (m == null) {
        throw new AssertionError("no SSE event with seq " + seq + " within " + timeout);
      }
      all.add(m);
    }
    events.drainTo(all);
    return List.copyOf(all);
  }

  @Override
  public void close() {
    call.cancel();
  }
}
