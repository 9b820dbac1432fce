package dev.danmakuledger.server.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.danmakuledger.server.ingest.StageTimes.Stage;
import org.junit.jupiter.api.Test;

class StageTimesTest {
  @Test
  void meansPerBatchAreTakenOverTheBatchesBetweenTwoSnapshots() {
    StageTimes t = new StageTimes();
    t.add(Stage.COMMIT, 5_000_000);
    t.countBatch();
    StageTimes.Snapshot before = t.snapshot();
    t.add(Stage.COMMIT, 3_000_000);
    t.add(Stage.COMMIT, 1_000_000);
    t.add(Stage.ADMIT, 2_000_000);
    t.countBatch();
    t.countBatch();

    StageTimes.Snapshot run = t.snapshot().minus(before);

    assertEquals(2, run.batches());
    assertEquals(2.0, run.msPerBatch(Stage.COMMIT), 1e-9);
    assertEquals(1.0, run.msPerBatch(Stage.ADMIT), 1e-9);
    assertEquals(0.0, run.msPerBatch(Stage.PARSE), 1e-9);
  }

  @Test
  void noBatchMeansZeroNotADivisionByZero() {
    StageTimes t = new StageTimes();
    t.add(Stage.PARSE, 1_000);
    assertEquals(0.0, t.snapshot().msPerBatch(Stage.PARSE), 1e-9);
  }

  @Test
  void negativeTimesAreRefused() {
    StageTimes t = new StageTimes();
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> t.add(Stage.VERIFY, -1));
    assertEquals("elapsed: got -1 ns, want >= 0", e.getMessage());
  }
}
