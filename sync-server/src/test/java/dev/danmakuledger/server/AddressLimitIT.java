package dev.danmakuledger.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import dev.danmakuledger.protocol.error.Problem;
import dev.danmakuledger.protocol.testing.MutableClock;
import dev.danmakuledger.protocol.wire.BatchRequest;
import dev.danmakuledger.testkit.TestDevice;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * A client address that keeps failing to authenticate is turned away with 429 until the window ends
 * (docs/security.md, "Failed authentication and rate limits"), on a live server with a small limit.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
final class AddressLimitIT {
  static final int LIMIT = 3;
  static final Duration WINDOW = Duration.ofMinutes(5);

  final MutableClock clock = MutableClock.running();
  SyncServer server;
  Api api;

  @BeforeAll
  void start(@TempDir Path dir) {
    server =
        SyncServer.start(
            ServerConfig.builder(dir)
                .attemptWindow(WINDOW)
                .maxFailuresPerAddress(LIMIT)
                .clock(clock)
                .build());
    api = new Api(server.baseUri(), server.adminToken());
  }

  @AfterAll
  void stop() {
    server.close();
  }

  TestDevice enrolledDevice() {
    return api.enrollNew(server.enrollToken());
  }

  @Test
  void anAddressThatKeepsFailingGets429ForEveryBatchUntilTheWindowEnds() {
    clock.advance(WINDOW.plusSeconds(1));
    TestDevice genuine = enrolledDevice();
    TestDevice a = enrolledDevice();
    TestDevice b = enrolledDevice();
    assertEquals(403, api.post(path(a.id), HostileClientsIT.forged(a)).status());
    assertEquals(403, api.post(path(b.id), HostileClientsIT.forged(b)).status());
    Api.Reply unknown = api.post(path("nobody"), new BatchRequest(0, List.of(), "x", null));
    assertEquals(401, unknown.status(), unknown.toString());

    Api.Reply refused =
        api.post(path(genuine.id), genuine.batch(genuine.record("r", "u1", "hello")));
    assertEquals(429, refused.status(), refused.toString());
    assertEquals("rate-limited", refused.code());
    assertEquals(Problem.MEDIA_TYPE, refused.contentType());
    assertNotNull(refused.retryAfter());
    assertEquals(WINDOW.toSeconds(), Long.parseLong(refused.retryAfter()), 2.0);

    clock.advance(WINDOW);
    Api.Reply ok = api.post(path(genuine.id), genuine.resend(0, 1));
    assertEquals(200, ok.status(), ok.toString());
  }

  @Test
  void failedEnrolmentTokensAreCountedAndLimitedPerAddress() {
    clock.advance(WINDOW.plusSeconds(1));
    double before = enrollmentFailures();
    for (int i = 0; i < LIMIT; i++) {
      Api.Reply r = enroll(TestDevice.create("guess-" + i), "guess-" + i);
      assertEquals(403, r.status(), r.toString());
    }
    assertEquals(before + LIMIT, enrollmentFailures(), 0.0);

    Api.Reply refused = enroll(TestDevice.create("guess-x"), server.enrollToken());
    assertEquals(429, refused.status(), refused.toString());
    assertEquals("rate-limited", refused.code());
    assertEquals(Problem.MEDIA_TYPE, refused.contentType());
    assertNotNull(refused.retryAfter());

    clock.advance(WINDOW.plusSeconds(1));
    assertEquals(200, enroll(TestDevice.create("late"), server.enrollToken()).status());
  }

  Api.Reply enroll(TestDevice d, String token) {
    return api.post("/v1/devices", d.enrollRequest(token));
  }

  double enrollmentFailures() {
    for (String line : api.get("/metrics").body().split("\n")) {
      if (line.startsWith("danmaku_enrollment_failures_total ")) {
        return Double.parseDouble(line.substring(line.indexOf(' ') + 1));
      }
    }
    throw new AssertionError("no danmaku_enrollment_failures_total in /metrics");
  }

  static String path(String deviceId) {
    return "/v1/devices/" + deviceId + "/batches";
  }
}
