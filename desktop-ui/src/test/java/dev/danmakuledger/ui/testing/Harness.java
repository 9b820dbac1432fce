package dev.danmakuledger.ui.testing;

import dev.danmakuledger.protocol.testing.MutableClock;
import dev.danmakuledger.protocol.wire.Json;
import dev.danmakuledger.ui.client.AdminClient;
import dev.danmakuledger.ui.client.Endpoint;
import dev.danmakuledger.ui.history.HistoryStore;
import dev.danmakuledger.ui.live.Async;
import dev.danmakuledger.ui.live.ConnectionViewModel;
import dev.danmakuledger.ui.live.ConsoleContext;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import okhttp3.OkHttpClient;
import okhttp3.mockwebserver.MockResponse;
import okhttp3.mockwebserver.MockWebServer;

/**
 * A view-model test bed: a MockWebServer, the console's client pointed at it, synchronous executors
 * (so each call completes before the method under test returns), an in-memory history and a
 * hand-moved clock starting at 2026-11-30T06:00:00Z.
 */
public final class Harness implements AutoCloseable {
  public static final String TOKEN = "test-token";

  public final MockWebServer server = new MockWebServer();
  public final MutableClock clock = new MutableClock(Instant.parse("2026-11-30T06:00:00Z"));
  public final OkHttpClient http =
      new OkHttpClient.Builder().readTimeout(Duration.ofSeconds(5)).build();
  public final AdminClient client;
  public final HistoryStore history;
  public final ConsoleContext context;

  public Harness() {
    this(HistoryStore.inMemory(Json.mapper()));
  }

  public Harness(HistoryStore history) {
    try {
      server.start();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    this.history = history;
    this.client = new AdminClient(http, new Endpoint(server.url("/"), TOKEN));
    this.context =
        new ConsoleContext(
            client,
            new Async(Runnable::run, Runnable::run),
            new ConnectionViewModel(clock, server.url("/").toString()),
            history,
            clock);
  }

  public ConnectionViewModel connection() {
    return context.connection();
  }

  /** Queues a 200 JSON reply with the named file from {@code src/test/resources/fixtures}. */
  public void json(String fixture) {
    server.enqueue(
        new MockResponse().setHeader("Content-Type", "application/json").setBody(read(fixture)));
  }

  public static String read(String fixture) {
    try (InputStream in = Harness.class.getResourceAsStream("/fixtures/" + fixture)) {
      if (in == null) {
        throw new IllegalArgumentException("no fixture " + fixture);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Makes the server unreachable: later calls get connection refused. */
  public void stopServer() {
    try {
      server.shutdown();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public void close() {
    stopServer();
    history.close();
    http.dispatcher().executorService().shutdown();
    http.connectionPool().evictAll();
  }
}
