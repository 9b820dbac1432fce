package dev.danmakuledger.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.danmakuledger.lua.testing.RedisFixture;
import dev.danmakuledger.protocol.error.Problem;
import dev.danmakuledger.server.events.StreamLimits;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Room-stream subscriber limits over HTTP (docs/operations.md, "Room stream limits"): up to each
 * limit a stream opens (200, text/event-stream); one more is refused before the stream starts, 503
 * for the instance's and the room's capacity and 429 for the client address's quota, each with
 * {@code Retry-After}, a problem body naming the limit, and a count in the metrics.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
final class StreamLimitsIT {
  @TempDir static Path dir;
  static RedisFixture redis;
  static SyncServer roomsAndAddresses;
  static SyncServer instance;
  static final HttpClient HTTP = HttpClient.newHttpClient();
  static final List<HttpResponse<InputStream>> OPEN = new ArrayList<>();

  @BeforeAll
  static void start() {
    redis = RedisFixture.embedded();
    Duration poll = Duration.ofSeconds(1);
    roomsAndAddresses =
        SyncServer.start(
            ServerConfig.builder(dir.resolve("a"))
                .redisUri(redis.uri())
                .streamLimits(new StreamLimits(100, poll, 1_000, 10, 2, 3, 2, 2))
                .build());
    instance =
        SyncServer.start(
            ServerConfig.builder(dir.resolve("b"))
                .redisUri(redis.uri())
                .streamLimits(new StreamLimits(100, poll, 1_000, 2, 2, 2, 2, 2))
                .build());
  }

  @AfterAll
  static void stop() throws Exception {
    for (HttpResponse<InputStream> r : OPEN) {
      r.body().close();
    }
    if (instance != null) {
      instance.close();
    }
    if (roomsAndAddresses != null) {
      roomsAndAddresses.close();
    }
    redis.close();
  }

  static HttpResponse<InputStream> open(SyncServer server, String room) throws Exception {
    HttpRequest req =
        HttpRequest.newBuilder(server.baseUri().resolve("/v1/rooms/" + room + "/stream"))
            .header("Accept", "text/event-stream")
            .build();
    HttpResponse<InputStream> r =
        HTTP.sendAsync(req, HttpResponse.BodyHandlers.ofInputStream()).get(30, TimeUnit.SECONDS);
    if (r.statusCode() == 200) {
      OPEN.add(r);
    }
    return r;
  }

  static void assertRefused(HttpResponse<InputStream> r, int status, String code, String limit)
      throws Exception {
    assertEquals(status, r.statusCode());
    assertEquals(Problem.MEDIA_TYPE, r.headers().firstValue("Content-Type").orElse(""));
    assertEquals("5", r.headers().firstValue("Retry-After").orElse(""));
    String body;
    try (InputStream in = r.body()) {
      body = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    assertTrue(body.contains("\"code\":\"" + code + "\""), body);
    assertTrue(body.contains("\"limit\":\"" + limit + "\""), body);
  }

  static String metrics(SyncServer server) throws Exception {
    return HTTP.send(
            HttpRequest.newBuilder(URI.create(server.baseUri() + "/metrics")).build(),
            HttpResponse.BodyHandlers.ofString())
        .body();
  }

  @Test
  void aRoomAndAnAddressAdmitTheirLimitAndRefuseTheNextWith503And429() throws Exception {
    assertEquals(200, open(roomsAndAddresses, "limits-busy").statusCode());
    assertEquals(200, open(roomsAndAddresses, "limits-busy").statusCode());
    assertRefused(open(roomsAndAddresses, "limits-busy"), 503, "too-many-streams", "room");
    assertEquals(200, open(roomsAndAddresses, "limits-other").statusCode());
    assertRefused(
        open(roomsAndAddresses, "limits-third"), 429, "too-many-streams-from-address", "address");
    String m = metrics(roomsAndAddresses);
    assertTrue(m.contains("danmaku_sse_refused_total{limit=\"room\"} 1.0"), m);
    assertTrue(m.contains("danmaku_sse_refused_total{limit=\"address\"} 1.0"), m);
  }

  @Test
  void theInstanceAdmitsItsLimitAndRefusesTheNextWith503() throws Exception {
    assertEquals(200, open(instance, "limits-a").statusCode());
    assertEquals(200, open(instance, "limits-b").statusCode());
    assertRefused(open(instance, "limits-c"), 503, "too-many-streams", "instance");
    assertTrue(
        metrics(instance).contains("danmaku_sse_refused_total{limit=\"instance\"} 1.0"),
        "instance refusal counted");
  }
}
