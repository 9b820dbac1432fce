package dev.danmakuledger.server.http;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.javalin.http.Context;
import io.javalin.http.sse.SseClient;
import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.WriteListener;
import jakarta.servlet.http.HttpServletResponse;
import java.io.ByteArrayOutputStream;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The stream heartbeat (docs/sync-server.md, "Room streams"): every client hears it once a round,
 * one slice of the clients at a time.
 */
final class SseClientsTest {
  /** What a client was sent. */
  private static final class Sink extends ServletOutputStream {
    final ByteArrayOutputStream bytes = new ByteArrayOutputStream();

    @Override
    public void write(int b) {
      bytes.write(b);
    }

    @Override
    public boolean isReady() {
      return true;
    }

    @Override
    public void setWriteListener(WriteListener listener) {}

    String text() {
      return bytes.toString(StandardCharsets.UTF_8);
    }
  }

  private static SseClient client(Sink sink) {
    HttpServletResponse res =
        (HttpServletResponse)
            Proxy.newProxyInstance(
                SseClientsTest.class.getClassLoader(),
                new Class<?>[] {HttpServletResponse.class},
                (proxy, method, args) -> method.getName().equals("getOutputStream") ? sink : null);
    Context ctx =
        (Context)
            Proxy.newProxyInstance(
                SseClientsTest.class.getClassLoader(),
                new Class<?>[] {Context.class},
                (proxy, method, args) -> method.getName().equals("res") ? res : null);
    return new SseClient(ctx);
  }

  @Test
  void eachClientHearsTheHeartbeatOnceARoundInItsOwnSlice() {
    int clients = 2 * SseClients.SLICES + 1;
    List<Sink> sinks = new ArrayList<>();
    try (SseClients open = new SseClients(Duration.ofHours(1))) {
      for (int i = 0; i < clients; i++) {
        Sink sink = new Sink();
        sinks.add(sink);
        open.track(client(sink));
      }
      int sent = 0;
      for (int slice = 0; slice < SseClients.SLICES; slice++) {
        int now = open.beat(slice);
        assertEquals(slice == 0 ? 3 : 2, now, "slice " + slice);
        sent += now;
      }
      assertEquals(clients, sent);
      for (Sink sink : sinks) {
        assertEquals(": keepalive\n", sink.text().replace("\r", ""));
      }
    }
  }
}
