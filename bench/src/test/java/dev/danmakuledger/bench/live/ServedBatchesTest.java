package dev.danmakuledger.bench.live;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Reading an instance's batch time histogram from its metrics exposition. */
class ServedBatchesTest {
  private static String exposition(long at25, long at50, long at100, long at250, long all) {
    return String.join(
        "\n",
        "# HELP danmaku_batch_seconds time to verify and store one batch, end to end",
        "# TYPE danmaku_batch_seconds histogram",
        "danmaku_batch_seconds_bucket{le=\"0.01\",} 0.0",
        "danmaku_batch_seconds_bucket{le=\"0.025\",} " + at25 + ".0",
        "danmaku_batch_seconds_bucket{le=\"0.05\",} " + at50 + ".0",
        "danmaku_batch_seconds_bucket{le=\"0.1\",} " + at100 + ".0",
        "danmaku_batch_seconds_bucket{le=\"0.25\",} " + at250 + ".0",
        "danmaku_batch_seconds_bucket{le=\"+Inf\",} " + all + ".0",
        "danmaku_batch_seconds_count " + all + ".0",
        "danmaku_stage_seconds_bucket{stage=\"admit\",le=\"0.05\",} 3.0",
        "");
  }

  @Test
  void theBatchesBetweenTwoReadingsAreSharesWithinEachBound() {
    ServedBatches before = ServedBatches.parse(exposition(10, 20, 40, 50, 50));
    ServedBatches after = ServedBatches.parse(exposition(110, 820, 1_030, 1_050, 1_050));
    assertEquals(
        "within 25 ms 10%, 50 ms 80%, 100 ms 99%, 250 ms 100% of 1,000 batches",
        after.since(before));
  }

  @Test
  void boundsWithoutQuotesCommaAndIntegerCountsParse() {
    ServedBatches s =
        ServedBatches.parse(
            "danmaku_batch_seconds_bucket{le=\"0.05\"} 7\ndanmaku_batch_seconds_bucket{le=\"+Inf\"} 9");
    assertEquals(7, s.within(0.05));
    assertEquals(9, s.within(Double.POSITIVE_INFINITY));
    assertEquals(-1, s.within(0.1));
  }

  @Test
  void noBatchBetweenTheReadingsIsSaid() {
    ServedBatches s = ServedBatches.parse(exposition(1, 2, 3, 4, 5));
    assertEquals("no batch answered", s.since(s));
    assertEquals("no batch answered", ServedBatches.parse("").since(ServedBatches.parse("")));
  }

  @Test
  void aMalformedBucketLineIsRefused() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> ServedBatches.parse("danmaku_batch_seconds_bucket{le=\"0.05\",} many"));
    assertTrue(e.getMessage().contains("not a histogram bucket"), e.getMessage());
    assertThrows(
        IllegalArgumentException.class,
        () -> ServedBatches.parse("danmaku_batch_seconds_bucket{le=\"soon\",} 3"));
  }
}
