package dev.danmakuledger.edge.sync;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/** The 413 halving of docs/sync.md, "Failures", at its bounds. */
class BatchLimitTest {
  final SyncSettings settings = SyncSettings.defaults().withBatchSize(500);

  @Test
  void withoutARefusalTheSettingsDecide() {
    assertEquals(500, BatchLimit.NONE.batchFor(settings, 1));
    assertEquals(500, BatchLimit.NONE.batchFor(settings, 9_999));
    assertEquals(10_000, BatchLimit.NONE.batchFor(settings, 10_000));
  }

  @Test
  void aRefusedBatchIsHalvedForLiveAndBacklogSizes() {
    BatchLimit limit = BatchLimit.belowRefused(500);
    assertEquals(250, limit.batchFor(settings, 1));
    assertEquals(250, limit.batchFor(settings, 10_000), "the backlog size is halved too");
  }

  @Test
  void halvingStopsAtOneRecord() {
    assertEquals(1, BatchLimit.belowRefused(2).records());
    assertEquals(1, BatchLimit.belowRefused(3).records());
    assertThrows(IllegalArgumentException.class, () -> BatchLimit.belowRefused(1));
    assertThrows(IllegalArgumentException.class, () -> new BatchLimit(0));
  }
}
