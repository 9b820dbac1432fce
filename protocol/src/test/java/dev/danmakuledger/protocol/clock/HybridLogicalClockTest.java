package dev.danmakuledger.protocol.clock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.danmakuledger.protocol.testing.MutableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.LongRange;
import org.junit.jupiter.api.Test;

class HybridLogicalClockTest {
  private static final long T = 1_732_953_600_000L;

  @Test
  void followsTheWallClockWhenItMovesForward() {
    MutableClock wall = new MutableClock(Instant.ofEpochMilli(T));
    HybridLogicalClock hlc = new HybridLogicalClock(wall);
    assertEquals(new Hlc(T, 0), hlc.now());
    assertEquals(new Hlc(T, 1), hlc.now());
    wall.advance(Duration.ofMillis(5));
    assertEquals(new Hlc(T + 5, 0), hlc.now());
  }

  @Test
  void staysMonotonicWhenTheWallClockGoesBackwards() {
    MutableClock wall = new MutableClock(Instant.ofEpochMilli(T));
    HybridLogicalClock hlc = new HybridLogicalClock(wall);
    Hlc before = hlc.now();
    wall.set(Instant.ofEpochMilli(T - 60_000));
    Hlc a = hlc.now();
    Hlc b = hlc.now();
    assertEquals(new Hlc(T, 1), a);
    assertEquals(new Hlc(T, 2), b);
    wall.set(Instant.ofEpochMilli(T + 1));
    assertEquals(new Hlc(T + 1, 0), hlc.now());
    assertTrue(before.compareTo(a) < 0);
  }

  @Test
  void remoteAheadPullsTheClockForward() {
    MutableClock wall = new MutableClock(Instant.ofEpochMilli(T));
    HybridLogicalClock hlc = new HybridLogicalClock(wall);
    hlc.now();
    Hlc received = hlc.update(new Hlc(T + 1000, 7));
    assertEquals(new Hlc(T + 1000, 8), received);
    assertEquals(new Hlc(T + 1000, 9), hlc.now());
  }

  @Test
  void remoteBehindKeepsLocalTime() {
    MutableClock wall = new MutableClock(Instant.ofEpochMilli(T));
    HybridLogicalClock hlc = new HybridLogicalClock(wall);
    hlc.now();
    assertEquals(new Hlc(T, 1), hlc.update(new Hlc(T - 5, 40)));
  }

  @Test
  void equalPhysicalTakesTheLargerCounter() {
    MutableClock wall = new MutableClock(Instant.ofEpochMilli(T));
    HybridLogicalClock hlc = new HybridLogicalClock(wall);
    hlc.now();
    hlc.now();
    assertEquals(new Hlc(T, 11), hlc.update(new Hlc(T, 10)));
    assertEquals(new Hlc(T, 12), hlc.update(new Hlc(T, 3)));
  }

  @Test
  void wallClockAheadOfBothResetsTheCounter() {
    MutableClock wall = new MutableClock(Instant.ofEpochMilli(T));
    HybridLogicalClock hlc = new HybridLogicalClock(wall);
    hlc.update(new Hlc(T, 100));
    wall.set(Instant.ofEpochMilli(T + 2));
    assertEquals(new Hlc(T + 2, 0), hlc.update(new Hlc(T + 1, 500)));
  }

  @Test
  void counterOverflowAdvancesThePhysicalPart() {
    MutableClock wall = new MutableClock(Instant.ofEpochMilli(T));
    HybridLogicalClock hlc = new HybridLogicalClock(wall);
    assertEquals(new Hlc(T, Hlc.MAX_LOGICAL), hlc.update(new Hlc(T, Hlc.MAX_LOGICAL - 1)));
    assertEquals(new Hlc(T + 1, 0), hlc.now());
    assertEquals(new Hlc(T + 1, 1), hlc.now());
  }

  @Test
  void remoteWithExhaustedCounterAdvancesThePhysicalPart() {
    HybridLogicalClock hlc = new HybridLogicalClock(new MutableClock(Instant.ofEpochMilli(T)));
    assertEquals(new Hlc(T + 11, 0), hlc.update(new Hlc(T + 10, Hlc.MAX_LOGICAL)));
  }

  @Test
  void refusesToOverflowTheLargestTimestamp() {
    HybridLogicalClock hlc = new HybridLogicalClock(new MutableClock(Instant.ofEpochMilli(T)));
    assertThrows(
        IllegalStateException.class, () -> hlc.update(new Hlc(Hlc.MAX_PHYSICAL, Hlc.MAX_LOGICAL)));
  }

  @Test
  void refusesAWallClockOutsideTheRange() {
    assertThrows(
        IllegalStateException.class,
        () -> new HybridLogicalClock(new MutableClock(Instant.ofEpochMilli(-1))).now());
    assertThrows(
        IllegalStateException.class,
        () ->
            new HybridLogicalClock(new MutableClock(Instant.ofEpochMilli(Hlc.MAX_PHYSICAL + 1)))
                .now());
  }

  @Test
  void refusesRemoteTimestampsBeyondTheDriftBoundAndStaysUnchanged() {
    MutableClock wall = new MutableClock(Instant.ofEpochMilli(T));
    HybridLogicalClock hlc = new HybridLogicalClock(wall, Duration.ofSeconds(5));
    hlc.now();
    assertEquals(new Hlc(T + 5000, 1), hlc.update(new Hlc(T + 5000, 0)));
    ClockDriftException e =
        assertThrows(ClockDriftException.class, () -> hlc.update(new Hlc(T + 3_600_000, 0)));
    assertEquals(3_600_000, e.aheadMillis());
    assertEquals(5000, e.maxMillis());
    assertEquals(new Hlc(T + 5000, 2), hlc.now());
    assertThrows(
        IllegalArgumentException.class, () -> new HybridLogicalClock(wall, Duration.ofMillis(-1)));
  }

  @Test
  void concurrentCallersGetDistinctIncreasingTimestamps() throws Exception {
    MutableClock wall = new MutableClock(Instant.ofEpochMilli(T));
    HybridLogicalClock hlc = new HybridLogicalClock(wall);
    int threads = 4;
    int perThread = 10_000;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<long[]>> futures = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int thread = t;
        futures.add(
            pool.submit(
                () -> {
                  long[] out = new long[perThread];
                  for (int i = 0; i < perThread; i++) {
                    if (thread == 0 && i % 500 == 0) {
                      wall.advance(Duration.ofMillis(i % 1500 == 0 ? -3 : 2));
                    }
                    out[i] =
                        (i % 2 == 0 ? hlc.now() : hlc.update(new Hlc(wall.millis() + 1, i))).pack();
                  }
                  return out;
                }));
      }
      Set<Long> all = new HashSet<>();
      for (Future<long[]> f : futures) {
        long[] out = f.get();
        for (int i = 0; i < out.length; i++) {
          assertTrue(i == 0 || out[i] > out[i - 1], "not monotonic within a thread");
          assertTrue(all.add(out[i]), "repeated " + Hlc.unpack(out[i]));
        }
      }
      assertEquals(threads * perThread, all.size());
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void packUnpackRoundTripAndOrder() {
    Hlc a = new Hlc(T, 65535);
    Hlc b = new Hlc(T + 1, 0);
    assertEquals(T << 16 | 65535, a.pack());
    assertEquals(a, Hlc.unpack(a.pack()));
    assertTrue(a.pack() < b.pack());
    Hlc max = new Hlc(Hlc.MAX_PHYSICAL, Hlc.MAX_LOGICAL);
    assertEquals(Long.MAX_VALUE, max.pack());
    assertEquals(max, Hlc.unpack(Long.MAX_VALUE));
    assertEquals(new Hlc(0, 0), Hlc.unpack(0));
  }

  @Test
  void rejectsOutOfRangeParts() {
    assertThrows(IllegalArgumentException.class, () -> new Hlc(-1, 0));
    assertThrows(IllegalArgumentException.class, () -> new Hlc(Hlc.MAX_PHYSICAL + 1, 0));
    assertThrows(IllegalArgumentException.class, () -> new Hlc(0, -1));
    assertThrows(IllegalArgumentException.class, () -> new Hlc(0, 65536));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Hlc.unpack(-1));
    assertEquals("packed hlc: got -1, want >= 0", e.getMessage());
  }

  /** One step of a scenario: move the wall clock by delta, then tick or receive a remote stamp. */
  record Step(long wallDelta, Hlc remote) {}

  @Property(seed = "1402", tries = 300)
  void everyTimestampExceedsAllEarlierOnesAndTheRemote(@ForAll("scenarios") List<Step> steps) {
    MutableClock wall = new MutableClock(Instant.ofEpochMilli(T));
    HybridLogicalClock hlc = new HybridLogicalClock(wall);
    Hlc last = new Hlc(0, 0);
    long maxWall = 0;
    for (Step step : steps) {
      wall.advance(Duration.ofMillis(step.wallDelta()));
      maxWall = Math.max(maxWall, wall.millis());
      Hlc next = step.remote() == null ? hlc.now() : hlc.update(step.remote());
      assertTrue(next.compareTo(last) > 0, last + " then " + next);
      if (step.remote() != null) {
        assertTrue(next.compareTo(step.remote()) > 0, step.remote() + " then " + next);
      }
      assertTrue(next.physicalMillis() >= maxWall, "physical below the wall clock");
      last = next;
    }
  }

  @Property(seed = "1403", tries = 200)
  void unpackInvertsPack(@ForAll @LongRange(min = 0) long packed) {
    assertEquals(packed, Hlc.unpack(packed).pack());
  }

  @Provide
  Arbitrary<List<Step>> scenarios() {
    Arbitrary<Hlc> remotes =
        Arbitraries.longs()
            .between(T - 100, T + 100)
            .flatMap(
                p -> Arbitraries.integers().between(0, Hlc.MAX_LOGICAL).map(l -> new Hlc(p, l)))
            .injectNull(0.5);
    Arbitrary<Long> deltas = Arbitraries.longs().between(-50, 50);
    return net.jqwik.api.Combinators.combine(deltas, remotes).as(Step::new).list().ofMaxSize(60);
  }
}
