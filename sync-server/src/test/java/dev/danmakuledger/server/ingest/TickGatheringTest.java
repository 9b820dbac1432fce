package dev.danmakuledger.server.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** When a tick that could commit now waits for more batches (docs/architecture.md §5, "Ticks"). */
class TickGatheringTest {
  private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);
  private static final long GATHER = TickGathering.MILLIS * MS;

  /** A time far from zero, so that the arithmetic does not depend on where nanoTime starts. */
  private static final long T0 = 1_000_000_000_000L;

  /** Four devices that each submitted just now; the committer finished a tick at T0. */
  private static TickGathering fourActive() {
    TickGathering g = new TickGathering();
    for (int d = 1; d <= 4; d++) {
      g.submitted("d" + d, T0);
    }
    return g;
  }

  @Test
  void aTickOfSomeOfTheActiveDevicesWaitsUntilItsOldestBatchWaitedTheGatherTime() {
    TickGathering g = fourActive();
    assertFalse(g.gathered(T0 + GATHER - 1, 20, 1, T0, T0), "one of four devices, young");
    assertTrue(g.gathered(T0 + GATHER, 20, 1, T0, T0), "its oldest batch waited the gather time");
  }

  @Test
  void aTickHoldingTheGatherRecordsDoesNotWait() {
    TickGathering g = fourActive();
    assertFalse(g.gathered(T0 + MS, TickGathering.RECORDS - 1, 2, T0, T0));
    assertTrue(g.gathered(T0 + MS, TickGathering.RECORDS, 2, T0, T0));
  }

  @Test
  void aTickHoldingABatchOfEveryActiveDeviceDoesNotWait() {
    TickGathering g = fourActive();
    assertFalse(g.gathered(T0 + MS, 80, 3, T0, T0));
    assertTrue(g.gathered(T0 + MS, 80, 4, T0, T0), "nothing more is coming");
  }

  @Test
  void aLoneBatchOnAnIdleServerIsNotDelayed() {
    TickGathering g = fourActive();
    long now = T0 + 5 * GATHER;
    assertTrue(g.gathered(now, 1, 1, now, now - GATHER), "the committer idle for the gather time");
    assertFalse(g.gathered(now, 1, 1, now, now - GATHER + 1), "it finished a tick just before");
  }

  @Test
  void aDeviceSilentForASecondNoLongerCounts() {
    TickGathering g = new TickGathering();
    g.submitted("old", T0);
    g.submitted("d1", T0 + TickGathering.ACTIVE_NANOS);
    long now = T0 + TickGathering.ACTIVE_NANOS;
    assertFalse(g.gathered(now, 20, 1, now, now), "both count a second after the older one");
    assertEquals(2, g.activeDevices());
    assertTrue(g.gathered(now + 1, 20, 1, now + 1, now + 1), "the older one no longer counts");
    assertEquals(1, g.activeDevices());
  }

  @Test
  void aDeviceThatSubmitsAgainCountsOnceFromItsLatestBatch() {
    TickGathering g = new TickGathering();
    g.submitted("d1", T0);
    g.submitted("d2", T0 + MS);
    g.submitted("d1", T0 + TickGathering.ACTIVE_NANOS);
    long now = T0 + TickGathering.ACTIVE_NANOS + 2 * MS;
    assertTrue(g.gathered(now, 20, 1, now, now), "d2 no longer counts, d1 once");
    assertEquals(1, g.activeDevices());
  }

  @Test
  void devicesSilentForASecondAreForgottenEvenWhenEveryTickIsFull() {
    TickGathering g = new TickGathering();
    for (int d = 0; d < 10_000; d++) {
      g.submitted("d" + d, T0 + d * MS);
    }
    long last = T0 + 9_999 * MS;
    assertTrue(g.gathered(last, TickGathering.RECORDS, 1, last, last));
    assertEquals(1_001, g.activeDevices(), "the devices of the last second, not all ever seen");
  }

  @Test
  void theDeadlineIsTheGatherTimeAfterTheOldestBatch() {
    assertEquals(T0 + GATHER, TickGathering.deadline(T0));
  }
}
