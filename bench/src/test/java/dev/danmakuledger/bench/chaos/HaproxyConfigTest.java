package dev.danmakuledger.bench.chaos;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The HAProxy configuration the multi-instance chaos run writes (docs/operations.md). */
class HaproxyConfigTest {
  private static List<String> lines(String cfg) {
    return cfg.lines().map(String::strip).toList();
  }

  @Test
  void balancesRoundRobinOverEveryServerCheckedOnItsHealthEndpoint() {
    String cfg = new HaproxyConfig(9000, List.of(9101, 9102, 9103)).render();
    List<String> l = lines(cfg);
    assertTrue(l.contains("bind 127.0.0.1:9000"), cfg);
    assertTrue(l.contains("balance roundrobin"), cfg);
    assertTrue(l.contains("option httpchk"), cfg);
    assertTrue(l.contains("http-check send meth GET uri /healthz"), cfg);
    assertTrue(l.contains("http-check expect status 200"), cfg);
    assertEquals(
        List.of(
            "server sync-a 127.0.0.1:9101 check",
            "server sync-b 127.0.0.1:9102 check",
            "server sync-c 127.0.0.1:9103 check"),
        l.stream().filter(s -> s.startsWith("server ")).toList());
  }

  @Test
  void keepsStreamsOpenAndRetriesOnlyWhatNeverReachedAnInstance() {
    List<String> l = lines(new HaproxyConfig(9000, List.of(9101)).render());
    assertTrue(l.contains("timeout tunnel 1h"), l.toString());
    // longer than the 15 s comment heartbeat of a room stream, or idle streams would be cut
    assertTrue(l.contains("timeout server 60s"), l.toString());
    assertTrue(l.contains("timeout client 60s"), l.toString());
    assertTrue(l.contains("retry-on conn-failure empty-response"), l.toString());
    assertTrue(l.contains("option redispatch 1"), l.toString());
    // an instance's own 503 outage answer must reach the agent, never be retried elsewhere
    assertTrue(
        l.stream().noneMatch(s -> s.startsWith("retry-on") && s.contains("503")), l.toString());
  }

  @Test
  void theBalancersOwnErrorsAreProblemsWithRetryAfterAndMarked() {
    List<String> errors =
        lines(new HaproxyConfig(9000, List.of(9101)).render()).stream()
            .filter(s -> s.startsWith("http-error"))
            .toList();
    assertEquals(3, errors.size(), errors.toString());
    for (String status : List.of("502", "503", "504")) {
      String line =
          errors.stream()
              .filter(s -> s.startsWith("http-error status " + status))
              .findFirst()
              .orElseThrow(() -> new AssertionError("no http-error for " + status));
      assertTrue(line.contains("content-type application/problem+json"), line);
      assertTrue(line.contains("\"status\":" + status), line);
      assertTrue(line.contains("hdr Retry-After 1"), line);
      assertTrue(line.contains("hdr " + HaproxyConfig.BALANCER_HEADER + " haproxy"), line);
    }
  }

  @Test
  void refusesNoServersDuplicatesAndPortsOutOfRange() {
    assertThrows(IllegalArgumentException.class, () -> new HaproxyConfig(9000, List.of()));
    assertThrows(
        IllegalArgumentException.class, () -> new HaproxyConfig(9000, List.of(9101, 9101)));
    assertThrows(IllegalArgumentException.class, () -> new HaproxyConfig(9000, List.of(9000)));
    assertThrows(IllegalArgumentException.class, () -> new HaproxyConfig(0, List.of(9101)));
    assertThrows(IllegalArgumentException.class, () -> new HaproxyConfig(9000, List.of(70_000)));
  }

  @Test
  void holdsTheConnectionsAskedForInAllAndInTheFrontend() {
    List<String> chaos = lines(new HaproxyConfig(9000, List.of(9101)).render());
    assertEquals(2, chaos.stream().filter(s -> s.equals("maxconn 512")).count(), chaos.toString());
    List<String> rooms =
        lines(
            new HaproxyConfig(9000, List.of(9101, 9102), 12_000, HaproxyConfig.STREAM_BUFFER_BYTES)
                .render());
    assertEquals(
        2, rooms.stream().filter(s -> s.equals("maxconn 12000")).count(), rooms.toString());
  }

  @Test
  void refusesConnectionLimitsOutOfRange() {
    int b = HaproxyConfig.BATCH_BUFFER_BYTES;
    new HaproxyConfig(9000, List.of(9101), 1, b);
    new HaproxyConfig(9000, List.of(9101), 1_000_000, b);
    assertThrows(
        IllegalArgumentException.class, () -> new HaproxyConfig(9000, List.of(9101), 0, b));
    assertThrows(
        IllegalArgumentException.class, () -> new HaproxyConfig(9000, List.of(9101), 1_000_001, b));
  }

  @Test
  void buffersHoldABatchForTheChaosRunAndLessForManyStreams() {
    List<String> chaos = lines(new HaproxyConfig(9000, List.of(9101)).render());
    assertTrue(chaos.contains("tune.bufsize 1048576"), chaos.toString());
    List<String> rooms =
        lines(
            new HaproxyConfig(9000, List.of(9101), 100, HaproxyConfig.STREAM_BUFFER_BYTES)
                .render());
    assertTrue(rooms.contains("tune.bufsize 65536"), rooms.toString());
  }

  @Test
  void refusesBuffersOutOfRange() {
    new HaproxyConfig(9000, List.of(9101), 1, 16_384);
    new HaproxyConfig(9000, List.of(9101), 1, 16_777_216);
    assertThrows(
        IllegalArgumentException.class, () -> new HaproxyConfig(9000, List.of(9101), 1, 16_383));
    assertThrows(
        IllegalArgumentException.class,
        () -> new HaproxyConfig(9000, List.of(9101), 1, 16_777_217));
  }
}
