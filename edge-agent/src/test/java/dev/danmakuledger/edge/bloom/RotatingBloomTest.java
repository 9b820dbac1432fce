package dev.danmakuledger.edge.bloom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.danmakuledger.protocol.testing.MutableClock;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class RotatingBloomTest {
  private final MutableClock clock = new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));

  @Test
  void rotatesWhenTheCurrentGenerationHoldsNItems() {
    RotatingBloom b = RotatingBloom.create(new BloomConfig(100, 0.01, Duration.ofDays(1)), clock);
    for (int i = 0; i < 100; i++) {
      b.put("a" + i);
    }
    assertEquals(0, b.rotations());
    b.put("b0");
    assertEquals(1, b.rotations());
    assertEquals(1, b.currentItems());
    assertEquals(100L, b.previousItems().orElseThrow());
    assertTrue(b.mightContain("a7"), "keys of the previous generation are still answered");
  }

  @Test
  void rotatesWhenTheWindowEndsAndForgetsAfterTwoGenerations() {
    RotatingBloom b =
        RotatingBloom.create(new BloomConfig(1_000, 0.001, Duration.ofHours(1)), clock);
    b.put("old");
    clock.advance(Duration.ofMinutes(59));
    b.put("recent");
    assertEquals(0, b.rotations());
    clock.advance(Duration.ofMinutes(1));
    b.put("new");
    assertEquals(1, b.rotations());
    assertTrue(b.mightContain("old"));
    clock.advance(Duration.ofHours(1));
    b.put("newer");
    assertEquals(2, b.rotations());
    assertFalse(b.mightContain("old"), "two rotations later the first generation is gone");
    assertTrue(b.mightContain("new"));
  }

  @Test
  void memoryStaysBoundedByTwoGenerations() {
    BloomConfig config = new BloomConfig(1_000, 0.01, Duration.ofDays(1));
    RotatingBloom b = RotatingBloom.create(config, clock);
    long oneGeneration = BloomFilter.create(1_000, config.perGenerationRate()).memoryBytes();
    for (int i = 0; i < 10_000; i++) {
      b.put("k" + i);
    }
    assertEquals(9, b.rotations());
    assertEquals(2 * oneGeneration, b.memoryBytes());
  }

  @Test
  void combinedFalsePositiveRateStaysWithinTheConfiguredRate() {
    double p = 0.01;
    RotatingBloom b = RotatingBloom.create(new BloomConfig(250_000, p, Duration.ofDays(1)), clock);
    for (int i = 0; i < 500_000; i++) {
      b.put("member-" + i);
    }
    assertEquals(1, b.rotations());
    int fp = 0;
    int queries = 1_000_000;
    for (int i = 0; i < queries; i++) {
      if (b.mightContain("absent-" + i)) {
        fp++;
      }
    }
    double measured = (double) fp / queries;
    // Both generations full is the worst case: 1 - (1 - p/2)^2 = 0.009975 expected. Allow four
    // standard deviations of sampling noise over 1M queries (4 * 1e-4).
    double bound = p + 4 * Math.sqrt(p * (1 - p) / queries);
    assertTrue(
        measured <= bound,
        "measured FPR of both generations: got " + measured + ", want <= " + bound);
  }

  @Test
  void snapshotRestoresBothGenerations() {
    BloomConfig config = new BloomConfig(10, 0.01, Duration.ofDays(1));
    RotatingBloom b = RotatingBloom.create(config, clock);
    for (int i = 0; i < 15; i++) {
      b.put("k" + i);
    }
    RotatingBloom r = RotatingBloom.restore(config, clock, b.snapshot(15));
    assertEquals(b.rotations(), r.rotations());
    assertEquals(b.currentItems(), r.currentItems());
    for (int i = 0; i < 15; i++) {
      assertTrue(r.mightContain("k" + i));
    }
  }

  @Test
  void snapshotOfAnotherSizingIsRefused() {
    RotatingBloom b = RotatingBloom.create(new BloomConfig(10, 0.01, Duration.ofDays(1)), clock);
    BloomSnapshot s = b.snapshot(0);
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> RotatingBloom.restore(new BloomConfig(20, 0.01, Duration.ofDays(1)), clock, s));
    assertTrue(e.getMessage().contains("want n=20"), e.getMessage());
  }
}
