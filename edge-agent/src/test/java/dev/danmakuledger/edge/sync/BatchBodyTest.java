package dev.danmakuledger.edge.sync;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.danmakuledger.edge.store.StoredRecord;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A batch is cut to the record bytes a server's default body limit takes. */
class BatchBodyTest {
  private static List<StoredRecord> records(int count, int canonicalBytes) {
    List<StoredRecord> out = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      out.add(
          new StoredRecord(
              i,
              "dev:user:" + i + ":n",
              "h",
              new byte[canonicalBytes],
              new byte[32],
              0,
              i + 1,
              null,
              null,
              null,
              null,
              null,
              null));
    }
    return out;
  }

  @Test
  void smallRecordsAllFit() {
    assertEquals(10_000, BatchBody.fitting(records(10_000, 150)));
  }

  @Test
  void longRecordsAreCutUnderTheBudget() {
    // 3,000 bytes → 4,000 in base64, + 40 each: 778 fit in 3 MiB, the 779th does not
    List<StoredRecord> rs = records(2_000, 3_000);
    int fit = BatchBody.fitting(rs);
    assertEquals(778, fit);
    assertTrue(fit * 4_040L <= BatchBody.MAX_RECORD_BYTES);
    assertTrue((fit + 1) * 4_040L > BatchBody.MAX_RECORD_BYTES);
  }

  @Test
  void oneRecordLargerThanTheBudgetStillGoesAlone() {
    List<StoredRecord> rs = records(3, (int) BatchBody.MAX_RECORD_BYTES);
    assertEquals(1, BatchBody.fitting(rs));
    assertEquals(0, BatchBody.fitting(List.of()));
  }
}
