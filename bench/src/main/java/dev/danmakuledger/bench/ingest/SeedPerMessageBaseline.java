package dev.danmakuledger.bench.ingest;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.danmakuledger.lua.Admission;
import dev.danmakuledger.lua.AdmitItem;
import dev.danmakuledger.lua.DedupeScripts;
import dev.danmakuledger.lua.RetryPolicy;
import dev.danmakuledger.protocol.record.DanmakuRecord;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The seed design's path, as the naive baseline (docs/benchmarks.md): one HTTP request per message,
 * one Redis Lua call per message (the project's admit script with a single key) and one
 * autocommitted INSERT per new message, on a small JDK HTTP server in this JVM with a pool of as
 * many connections as devices. Same messages, same Redis, same database as the ledger run.
 */
final class SeedPerMessageBaseline {
  static final String TABLE = "bench_seed_messages";
  private static final String ROOM_PREFIX = "seed-";

  private SeedPerMessageBaseline() {}

  static Measured run(
      String jdbcUrl, String redisUri, List<List<DanmakuRecord>> perDeviceMessages, String runId)
      throws Exception {
    ObjectMapper json = new ObjectMapper();
    int devices = perDeviceMessages.size();
    BlockingQueue<Connection> connections = new ArrayBlockingQueue<>(devices);
    List<DedupeScripts> scripts = new ArrayList<>();
    HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 64);
    ExecutorService handlers = Executors.newFixedThreadPool(devices);
    ExecutorService clients = Executors.newFixedThreadPool(devices);
    try {
      for (int i = 0; i < devices; i++) {
        Connection c = java.sql.DriverManager.getConnection(jdbcUrl);
        if (i == 0) {
          try (Statement st = c.createStatement()) {
            st.executeUpdate(
                "CREATE TABLE "
                    + TABLE
                    + " (room VARCHAR(80) NOT NULL, seq BIGINT NOT NULL, message_id BIGINT NOT"
                    + " NULL, idempotency_key VARCHAR(255) NOT NULL, content_hash CHAR(64) NOT"
                    + " NULL, device_id VARCHAR(64) NOT NULL, user_id VARCHAR(64) NOT NULL, text"
                    + " VARCHAR(1200) NOT NULL, created_at BIGINT NOT NULL, PRIMARY KEY (room,"
                    + " seq), CONSTRAINT uq_bench_seed_key UNIQUE (idempotency_key))");
          }
        }
        connections.add(c);
      }
      BlockingQueue<DedupeScripts> redis = new ArrayBlockingQueue<>(devices);
      for (int i = 0; i < devices; i++) {
        DedupeScripts s = DedupeScripts.standalone(redisUri, RetryPolicy.defaults());
        scripts.add(s);
        redis.add(s);
      }
      Set<String> rooms = new HashSet<>();
      perDeviceMessages.forEach(list -> list.forEach(r -> rooms.add(r.room())));
      for (String room : rooms) {
        scripts.get(0).seed(ROOM_PREFIX + runId + "-" + room, 0);
      }
      AtomicLong ids = new AtomicLong(1);
      server.setExecutor(handlers);
      server.createContext(
          "/message", exchange -> handle(exchange, json, connections, redis, ids, runId));
      server.start();
      URI target = URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/message");
      HttpClient http =
          HttpClient.newBuilder()
              .version(HttpClient.Version.HTTP_1_1)
              .connectTimeout(Duration.ofSeconds(5))
              .build();
      long records = perDeviceMessages.stream().mapToLong(List::size).sum();
      List<Future<Latencies>> running = new ArrayList<>();
      long start = System.nanoTime();
      for (List<DanmakuRecord> messages : perDeviceMessages) {
        running.add(clients.submit(() -> send(http, target, json, messages)));
      }
      Latencies all = new Latencies();
      for (Future<Latencies> f : running) {
        all.merge(f.get());
      }
      double seconds = (System.nanoTime() - start) / 1e9;
      return new Measured(
          "seed-per-message",
          records,
          seconds,
          all.percentileMs(99),
          "1 HTTP request + 1 Lua call + 1 INSERT per message; p99 is per message");
    } finally {
      server.stop(0);
      handlers.shutdownNow();
      clients.shutdownNow();
      scripts.forEach(DedupeScripts::close);
      for (Connection c : connections) {
        closeQuietly(c);
      }
    }
  }

  private static Latencies send(
      HttpClient http, URI target, ObjectMapper json, List<DanmakuRecord> messages)
      throws IOException, InterruptedException {
    Latencies lat = new Latencies();
    for (DanmakuRecord r : messages) {
      byte[] body =
          json.writeValueAsBytes(
              Map.of(
                  "key", r.key().toString(),
                  "room", r.room(),
                  "user", r.user(),
                  "text", r.text(),
                  "contentHash", r.contentHash()));
      HttpRequest req =
          HttpRequest.newBuilder(target)
              .header("Content-Type", "application/json")
              .POST(HttpRequest.BodyPublishers.ofByteArray(body))
              .build();
      long t0 = System.nanoTime();
      HttpResponse<String> res = http.send(req, HttpResponse.BodyHandlers.ofString());
      lat.add(System.nanoTime() - t0);
      if (res.statusCode() != 200) {
        throw new IOException(
            "seed path: got HTTP " + res.statusCode() + " " + res.body() + ", want 200");
      }
    }
    return lat;
  }

  private static void handle(
      HttpExchange exchange,
      ObjectMapper json,
      BlockingQueue<Connection> connections,
      BlockingQueue<DedupeScripts> redis,
      AtomicLong ids,
      String runId)
      throws IOException {
    int status = 200;
    String reply;
    try (InputStream in = exchange.getRequestBody()) {
      @SuppressWarnings("unchecked")
      Map<String, String> m = json.readValue(in, Map.class);
      String room = ROOM_PREFIX + runId + "-" + m.get("room");
      DedupeScripts scripts = redis.take();
      Admission a;
      try {
        a =
            scripts
                .admit(
                    room,
                    List.of(
                        new AdmitItem(m.get("key"), m.get("contentHash"), ids.getAndIncrement())),
                    Duration.ofHours(1))
                .get(0);
      } finally {
        redis.add(scripts);
      }
      if (a.status() == Admission.Status.NEW) {
        Connection c = connections.take();
        try {
          insert(c, room, a, m);
        } finally {
          connections.add(c);
        }
      }
      reply = "{\"status\":\"" + a.status() + "\",\"seq\":" + a.seq() + "}";
    } catch (Exception e) {
      status = 500;
      reply = "{\"error\":\"" + e.getClass().getSimpleName() + "\"}";
    }
    byte[] bytes = reply.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", "application/json");
    exchange.sendResponseHeaders(status, bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }

  private static void insert(Connection c, String room, Admission a, Map<String, String> m)
      throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "INSERT INTO "
                + TABLE
                + " (room, seq, message_id, idempotency_key, content_hash, device_id, user_id,"
                + " text, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
      ps.setString(1, room);
      ps.setLong(2, a.seq());
      ps.setLong(3, a.messageId());
      ps.setString(4, m.get("key"));
      ps.setString(5, m.get("contentHash"));
      ps.setString(6, m.get("key").substring(0, m.get("key").indexOf(':')));
      ps.setString(7, m.get("user"));
      ps.setString(8, m.get("text"));
      ps.setLong(9, System.currentTimeMillis());
      ps.executeUpdate();
    }
  }

  private static void closeQuietly(Connection c) {
    try {
      c.close();
    } catch (SQLException e) {
      // closing a benchmark connection: nothing to recover
    }
  }

  /** The names of this run's rooms start with this, so their keys can be removed afterwards. */
  static String roomPrefix(String runId) {
    return ROOM_PREFIX + runId + "-";
  }
}
