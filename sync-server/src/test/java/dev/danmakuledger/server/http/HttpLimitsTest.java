package dev.danmakuledger.server.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The request threads of the listener at their bound (docs/operations.md, "Admission limits"): at
 * least the bodies read at once plus the spare threads that reads, health checks, stream openings
 * and replies keep.
 */
final class HttpLimitsTest {
  private static HttpLimits withThreads(int maxBodies, int maxThreads) {
    return new HttpLimits(maxBodies, 1, 1024, Duration.ofSeconds(30), 8 * 1024, maxThreads);
  }

  @Test
  void threadsAreAtLeastTheBodiesPlusTheSpare() {
    assertEquals(40, withThreads(16, 40).maxThreads(), "16 bodies + 24 spare");
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> withThreads(16, 39));
    assertEquals(
        "maxThreads: got 39, want at least maxBodies + 24 (40) so that reads keep threads while"
            + " bodies are read",
        e.getMessage());
    assertEquals(25, withThreads(1, 25).maxThreads(), "the smallest listener");
    assertThrows(IllegalArgumentException.class, () -> withThreads(1, 24));
  }

  @Test
  void theDefaultsAreTheBodiesPlusTheSpare() {
    HttpLimits d = HttpLimits.DEFAULTS;
    assertEquals(16, d.maxBodies());
    assertEquals(8, d.maxBodiesPerAddress());
    assertEquals(d.maxBodies() + HttpLimits.SPARE_THREADS, d.maxThreads());
    assertEquals(40, d.maxThreads());
  }
}
