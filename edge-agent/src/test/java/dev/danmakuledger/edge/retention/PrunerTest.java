package dev.danmakuledger.edge.retention;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.danmakuledger.edge.capture.CaptureAck;
import dev.danmakuledger.edge.capture.IdempotencyConflictException;
import dev.danmakuledger.edge.store.EdgeStore;
import dev.danmakuledger.edge.store.OutcomeUpdate;
import dev.danmakuledger.edge.store.StoredRecord;
import dev.danmakuledger.edge.testing.TestDevice;
import dev.danmakuledger.edge.verify.VerifyReport;
import dev.danmakuledger.protocol.testing.MutableClock;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Retention pruning (docs/edge-agent.md "Retention and pruning"): only receipt-covered records with
 * a final outcome older than the retention lose their bytes, and dedupe and verify still work on
 * them.
 */
class PrunerTest {
  private static final int RECORDS = 120;
  private static final int FINAL = 80;
  private static final int PENDING_TO = 90;
  private static final int RECEIPT = 85;

  @TempDir Path dir;
  private final MutableClock clock = new MutableClock(Instant.parse("2026-03-01T00:00:00Z"));
  private TestDevice dev;

  @BeforeEach
  void captureAndAnswerSome() throws Exception {
    dev = TestDevice.create(dir, clock);
    String filler = "弹幕 ".repeat(60);
    for (int i = 0; i < RECORDS; i++) {
      dev.capture.capture(dev.request("u" + (i % 4), i, "message " + i + " " + filler));
    }
    List<OutcomeUpdate> answers = new ArrayList<>();
    long now = clock.millis();
    for (int i = 0; i < FINAL; i++) {
      answers.add(new OutcomeUpdate(i, "CONFIRMED", 1000L + i, "m" + i, null, now));
    }
    for (int i = FINAL; i < PENDING_TO; i++) {
      answers.add(new OutcomeUpdate(i, "PENDING", null, "m" + i, null, now));
    }
    dev.store.applyOutcomes(answers);
    dev.store.saveReceipt(RECEIPT, "receipt note", now);
  }

  @AfterEach
  void close() throws Exception {
    dev.close();
  }

  private List<StoredRecord> all() throws Exception {
    return dev.store.records(0, RECORDS + 10);
  }

  @Test
  void keepsRecordsYoungerThanTheRetention() throws Exception {
    clock.advance(Duration.ofHours(23));

    PruneReport r = new Pruner(dev.store, clock).prune(Duration.ofDays(1));

    assertEquals(0, r.pruned());
    assertTrue(all().stream().noneMatch(StoredRecord::pruned));
  }

  @Test
  void prunesOnlyCoveredRecordsWithAFinalOutcome() throws Exception {
    clock.advance(Duration.ofDays(2));

    PruneReport r = new Pruner(dev.store, clock).prune(Duration.ofDays(1));

    assertEquals(FINAL, r.pruned());
    assertEquals(RECEIPT, r.coveredSize());
    for (StoredRecord s : all()) {
      boolean want = s.index() < FINAL;
      assertEquals(want, s.pruned(), "record " + s.index());
      assertEquals(want, s.canonical().length == 0, "bytes of record " + s.index());
      assertEquals(32, s.leafHash().length);
    }
    assertEquals(0, new Pruner(dev.store, clock).prune(Duration.ofDays(1)).pruned(), "idempotent");
  }

  @Test
  void prunesNothingWithoutAReceipt() throws Exception {
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + EdgeStore.fileIn(dir));
        PreparedStatement ps = c.prepareStatement("DELETE FROM receipts")) {
      ps.executeUpdate();
    }
    clock.advance(Duration.ofDays(30));

    assertEquals(0, new Pruner(dev.store, clock).prune(Duration.ofDays(1)).pruned());
  }

  @Test
  void keepsTheNewestRecordSoTheAgentCanRestart() throws Exception {
    List<OutcomeUpdate> rest = new ArrayList<>();
    for (int i = FINAL; i < RECORDS; i++) {
      rest.add(new OutcomeUpdate(i, "DUPLICATE", 1000L + i, "m" + i, null, clock.millis()));
    }
    dev.store.applyOutcomes(rest);
    dev.store.saveReceipt(RECORDS, "receipt note", clock.millis());
    clock.advance(Duration.ofDays(2));

    assertEquals(RECORDS - 1, new Pruner(dev.store, clock).prune(Duration.ofDays(1)).pruned());
    dev.restart();

    CaptureAck fresh = dev.capture.capture(dev.request("new", 10_000, "after restart"));
    assertEquals(RECORDS, fresh.index());
    assertTrue(dev.verify().ok(), dev.verify().toString());
  }

  @Test
  void rejectsANonPositiveRetention() {
    Pruner p = new Pruner(dev.store, clock);
    assertThrows(IllegalArgumentException.class, () -> p.prune(Duration.ZERO));
    assertThrows(IllegalArgumentException.class, () -> p.prune(Duration.ofSeconds(-1)));
  }

  @Test
  void prunedKeysStillAnswerRepeatsAndConflicts() throws Exception {
    clock.advance(Duration.ofDays(2));
    new Pruner(dev.store, clock).prune(Duration.ofDays(1));
    dev.restart();

    CaptureAck repeat = dev.capture.capture(dev.request("u3", 7, "message 7 " + "弹幕 ".repeat(60)));
    IdempotencyConflictException conflict =
        assertThrows(
            IdempotencyConflictException.class,
            () -> dev.capture.capture(dev.request("u3", 7, "other text")));

    assertTrue(repeat.repeat());
    assertEquals(7, repeat.index());
    assertEquals(1007L, repeat.seq());
    assertEquals(7, conflict.original().index());
    assertEquals(RECORDS, dev.store.logState().size(), "nothing appended");
  }

  @Test
  void compactingAfterPruningShrinksTheFile() throws Exception {
    dev.store.compact();
    long before = dev.store.sizeOnDiskBytes();
    clock.advance(Duration.ofDays(2));
    new Pruner(dev.store, clock).prune(Duration.ofDays(1));

    dev.store.compact();

    long after = dev.store.sizeOnDiskBytes();
    assertTrue(after < before, "store " + before + " -> " + after + " bytes");
  }

  @Test
  void verifyCountsPrunedRecordsAndStillPasses() throws Exception {
    clock.advance(Duration.ofDays(2));
    new Pruner(dev.store, clock).prune(Duration.ofDays(1));

    VerifyReport r = dev.verify();

    assertTrue(r.ok(), r.toString());
    assertEquals(RECORDS, r.recordsChecked());
    assertEquals(FINAL, r.recordsPruned());
  }

  @Test
  void verifyCatchesATamperedLeafHashOfAPrunedRecord() throws Exception {
    clock.advance(Duration.ofDays(2));
    new Pruner(dev.store, clock).prune(Duration.ofDays(1));
    byte[] forged = new byte[32];
    forged[0] = 1;
    sql("UPDATE records SET leaf_hash = ? WHERE idx = 5", forged);

    VerifyReport r = dev.verify();

    assertFalse(r.ok());
    assertTrue(r.problem().contains("a record in"), r.problem());
  }

  @Test
  void verifyRejectsAPrunedRecordNoReceiptCovers() throws Exception {
    sql("UPDATE records SET canonical = ?, pruned_at = 1 WHERE idx = 100", new byte[0]);

    VerifyReport r = dev.verify();

    assertFalse(r.ok());
    assertEquals(100L, r.firstBadIndex());
    assertTrue(r.problem().contains("latest stored receipt covers only 85"), r.problem());
  }

  @Test
  void verifyRejectsAPrunedRecordWithoutAFinalOutcome() throws Exception {
    sql("UPDATE records SET canonical = ?, pruned_at = 1 WHERE idx = 82", new byte[0]);

    VerifyReport r = dev.verify();

    assertFalse(r.ok());
    assertEquals(82L, r.firstBadIndex());
    assertTrue(r.problem().contains("outcome PENDING"), r.problem());
  }

  @Test
  void prunedRowsKeepTheirLeafHashes() throws Exception {
    List<byte[]> leaves = all().stream().map(StoredRecord::leafHash).toList();
    clock.advance(Duration.ofDays(2));
    new Pruner(dev.store, clock).prune(Duration.ofDays(1));

    List<StoredRecord> after = all();
    for (int i = 0; i < RECORDS; i++) {
      assertArrayEquals(leaves.get(i), after.get(i).leafHash(), "leaf " + i);
    }
  }

  private void sql(String update, byte[] value) throws Exception {
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + EdgeStore.fileIn(dir));
        PreparedStatement ps = c.prepareStatement(update)) {
      ps.setBytes(1, value);
      assertEquals(1, ps.executeUpdate());
    }
  }
}
