package dev.danmakuledger.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

final class ServerConfigTest {
  private final Path dir = Path.of("/tmp/unused");

  @Test
  void defaultsAreEmbeddedLoopbackAndAFreePort() {
    ServerConfig c = ServerConfig.defaults(dir);
    assertTrue(c.embeddedRedis());
    assertTrue(c.embeddedDatabase());
    assertEquals("127.0.0.1", c.bind());
    assertEquals(0, c.port());
    assertEquals(Duration.ofMinutes(10), c.offlineAfter());
    assertEquals(Duration.ofSeconds(30), c.gapSealAfter());
    assertEquals(c, c.toBuilder().build());
    assertEquals(
        Duration.ofSeconds(30),
        c.toBuilder().offlineAfter(Duration.ofSeconds(30)).build().toBuilder()
            .build()
            .offlineAfter());
  }

  @Test
  void preconditionsSayWhatWasWrong() {
    IllegalArgumentException port =
        assertThrows(
            IllegalArgumentException.class, () -> ServerConfig.builder(dir).port(70000).build());
    assertEquals("port: got 70000, want 0..65535", port.getMessage());
    assertThrows(
        IllegalArgumentException.class,
        () ->
            ServerConfig.builder(dir)
                .redisUri("redis://a")
                .redisClusterSeeds(List.of("redis://b"))
                .build());
    assertThrows(
        IllegalArgumentException.class, () -> ServerConfig.builder(dir).maxBodyBytes(10).build());
    assertThrows(
        IllegalArgumentException.class,
        () -> ServerConfig.builder(dir).maxRecordsPerBatch(0).build());
    assertThrows(
        IllegalArgumentException.class,
        () -> ServerConfig.builder(dir).dedupeTtl(Duration.ZERO).build());
    IllegalArgumentException offline =
        assertThrows(
            IllegalArgumentException.class,
            () -> ServerConfig.builder(dir).offlineAfter(Duration.ofSeconds(-1)).build());
    assertEquals("offlineAfter: got PT-1S, want > 0", offline.getMessage());
    IllegalArgumentException seal =
        assertThrows(
            IllegalArgumentException.class,
            () -> ServerConfig.builder(dir).gapSealAfter(Duration.ZERO).build());
    assertEquals("gapSealAfter: got PT0S, want > 0", seal.getMessage());
    assertThrows(
        IllegalArgumentException.class,
        () -> ServerConfig.builder(dir).bannedWords(List.of(" ")).build());
    IllegalArgumentException retention =
        assertThrows(
            IllegalArgumentException.class,
            () -> ServerConfig.builder(dir).historyRetention(Duration.ofMinutes(59)).build());
    assertEquals("historyRetention: got PT59M, want 1 hour .. 366 days", retention.getMessage());
    assertThrows(
        IllegalArgumentException.class,
        () -> ServerConfig.builder(dir).historyRetention(Duration.ofDays(367)).build());
    assertEquals(
        Duration.ofHours(24), ServerConfig.builder(dir).build().historyRetention(), "the default");
    for (int n : new int[] {0, 17}) {
      IllegalArgumentException window =
          assertThrows(
              IllegalArgumentException.class,
              () -> ServerConfig.builder(dir).batchWindow(n).build());
      assertEquals("batchWindow: got " + n + ", want 1..16", window.getMessage());
    }
    assertEquals(4, ServerConfig.builder(dir).build().batchWindow(), "the default");
  }
}
