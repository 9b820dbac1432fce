package dev.danmakuledger.edge.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.danmakuledger.edge.bloom.BloomConfig;
import dev.danmakuledger.edge.bloom.BloomSnapshot;
import dev.danmakuledger.edge.bloom.RotatingBloom;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EdgeStoreTest {
  @TempDir Path dir;

  private static NewRecord record(long index, String key) {
    return new NewRecord(
        index, key, "hash-" + key, new byte[] {1, 2, (byte) index}, new byte[32], 42);
  }

  private static AppendBatch batch(long oldSize, List<NewRecord> records) {
    return new AppendBatch(
        oldSize,
        records,
        new byte[] {9},
        "note-" + (oldSize + records.size()),
        7,
        Map.of("captures", (long) records.size()));
  }

  @Test
  void newStoreIsMigratedOnceAndReopensAtTheSameVersion() throws Exception {
    Path file = EdgeStore.fileIn(dir);
    try (EdgeStore s = EdgeStore.open(file, Durability.FULL)) {
      assertEquals(3, s.schemaVersion());
      assertEquals(0, s.logState().size());
    }
    try (EdgeStore s = EdgeStore.open(file, Durability.FULL)) {
      assertEquals(3, s.schemaVersion());
    }
    try (EdgeStore s = EdgeStore.openReadOnly(file)) {
      assertEquals(3, s.schemaVersion());
    }
  }

  @Test
  void versionOneStoreGainsThePruningColumnAndKeepsItsRecords() throws Exception {
    Path file = EdgeStore.fileIn(dir);
    try (EdgeStore s = EdgeStore.open(file, Durability.FULL)) {
      s.append(batch(0, List.of(record(0, "k0"), record(1, "k1"))));
    }
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file);
        Statement st = c.createStatement()) {
      st.executeUpdate("DROP INDEX records_unsynced");
      st.executeUpdate("ALTER TABLE records DROP COLUMN pruned_at");
      st.executeUpdate("UPDATE meta SET value = '1' WHERE name = 'schema_version'");
    }
    assertThrows(StoreException.class, () -> EdgeStore.openReadOnly(file).close());

    try (EdgeStore s = EdgeStore.open(file, Durability.FULL)) {
      assertEquals(3, s.schemaVersion());
      assertEquals(2, s.records(0, 10).size());
      assertFalse(s.records(0, 10).get(1).pruned());
    }
  }

  @Test
  void oldestUnsyncedIsTheEarliestCaptureWithoutAnOutcome() throws Exception {
    try (EdgeStore s = EdgeStore.open(EdgeStore.fileIn(dir), Durability.FULL)) {
      assertTrue(s.oldestUnsyncedCapturedAt().isEmpty(), "empty log has no queue");
      s.append(
          new AppendBatch(
              0,
              List.of(
                  new NewRecord(0, "a", "h-a", new byte[] {1}, new byte[32], 300),
                  new NewRecord(1, "b", "h-b", new byte[] {2}, new byte[32], 100),
                  new NewRecord(2, "c", "h-c", new byte[] {3}, new byte[32], 200)),
              new byte[] {9},
              "note-3",
              7,
              Map.of()));
      assertEquals(100L, s.oldestUnsyncedCapturedAt().orElseThrow(), "a clock step back counts");
      s.applyOutcomes(List.of(new OutcomeUpdate(1, "CONFIRMED", 1L, "m1", null, 400)));
      assertEquals(200L, s.oldestUnsyncedCapturedAt().orElseThrow());
      s.applyOutcomes(
          List.of(
              new OutcomeUpdate(0, "REJECTED", null, null, "bad", 400),
              new OutcomeUpdate(2, "DUPLICATE", 2L, "m2", null, 400)));
      assertTrue(s.oldestUnsyncedCapturedAt().isEmpty(), "drained: every record has an outcome");
    }
  }

  @Test
  void storeFromANewerAgentIsRefused() throws Exception {
    Path file = EdgeStore.fileIn(dir);
    try (EdgeStore s = EdgeStore.open(file, Durability.FULL)) {
      s.putMeta("schema_version", "99");
    }
    StoreException e =
        assertThrows(StoreException.class, () -> EdgeStore.open(file, Durability.FULL));
    assertTrue(e.getMessage().contains("newer"), e.getMessage());
  }

  @Test
  void readOnlyOpenOfAMissingFileSaysToInit() {
    StoreException e =
        assertThrows(StoreException.class, () -> EdgeStore.openReadOnly(dir.resolve("none.db")));
    assertTrue(e.getMessage().contains("init"), e.getMessage());
  }

  @Test
  void appendCommitsRecordsCheckpointStateAndCounters() throws Exception {
    try (EdgeStore s = EdgeStore.open(EdgeStore.fileIn(dir), Durability.FULL)) {
      s.append(batch(0, List.of(record(0, "a"), record(1, "b"))));
      s.append(batch(2, List.of(record(2, "c"))));
      assertEquals(3, s.logState().size());
      assertEquals(3, s.recordCount());
      assertEquals(List.of(2L, 3L), s.checkpoints().stream().map(StoredCheckpoint::size).toList());
      assertEquals("note-3", s.latestCheckpoint().orElseThrow().note());
      assertEquals(3L, s.counters().get("captures"));
      StoredRecord b = s.findByKey("b").orElseThrow();
      assertEquals(1, b.index());
      assertEquals(2, b.checkpointSize());
      assertEquals("hash-b", b.contentHash());
      assertEquals(List.of("b", "c"), s.keysFrom(1));
    }
  }

  @Test
  void duplicateKeyRollsBackTheWholeBatch() throws Exception {
    try (EdgeStore s = EdgeStore.open(EdgeStore.fileIn(dir), Durability.FULL)) {
      s.append(batch(0, List.of(record(0, "a"))));
      DuplicateKeyException e =
          assertThrows(
              DuplicateKeyException.class,
              () -> s.append(batch(1, List.of(record(1, "fresh"), record(2, "a")))));
      assertEquals("a", e.idempotencyKey());
      assertEquals(1, s.logState().size());
      assertEquals(1, s.recordCount());
      assertTrue(s.findByKey("fresh").isEmpty());
      assertEquals(1, s.checkpoints().size());
      assertEquals(1L, s.counters().get("captures"));
    }
  }

  @Test
  void walIsCheckpointedOnlyPastItsFrameBoundOnBothOpenPaths() throws Exception {
    Path file = EdgeStore.fileIn(dir);
    try (EdgeStore s = EdgeStore.open(file, Durability.NORMAL)) {
      int frames = appendSinglesAndCountWalFrames(s, file, 0);
      // SQLite's default would have checkpointed and restarted the WAL after 1,000 frames.
      assertTrue(
          frames > 1_000 && frames < EdgeStore.WAL_AUTOCHECKPOINT_FRAMES,
          "WAL frames after 300 single appends: " + frames);
    }
    try (EdgeStore s = EdgeStore.openExisting(file, Durability.NORMAL)) {
      int frames = appendSinglesAndCountWalFrames(s, file, 300);
      assertTrue(
          frames > 1_000 && frames < EdgeStore.WAL_AUTOCHECKPOINT_FRAMES,
          "WAL frames after reopening and 300 single appends: " + frames);
    }
  }

  /**
   * Appends 300 one-record batches from index {@code first} (about six pages each) and returns the
   * frames in the WAL, as {@code PRAGMA wal_checkpoint} reports them from a second connection.
   */
  private static int appendSinglesAndCountWalFrames(EdgeStore s, Path file, int first)
      throws Exception {
    for (int i = first; i < first + 300; i++) {
      s.append(batch(i, List.of(record(i, "w" + i))));
    }
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file);
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("PRAGMA wal_checkpoint(PASSIVE)")) {
      assertTrue(rs.next());
      return rs.getInt(2);
    }
  }

  @Test
  void batchesOfManyRowsStoreEveryRowInOrder() throws Exception {
    try (EdgeStore s = EdgeStore.open(EdgeStore.fileIn(dir), Durability.FULL)) {
      // A batch of 300, then one of 128 (each a JDBC batch of single-row inserts).
      int first = 300;
      List<NewRecord> records = new ArrayList<>();
      for (int i = 0; i < first; i++) {
        records.add(record(i, "k" + i));
      }
      s.append(batch(0, records));
      List<NewRecord> more = new ArrayList<>();
      for (int i = first; i < first + 128; i++) {
        more.add(record(i, "k" + i));
      }
      s.append(batch(first, more));
      int size = first + 128;
      List<StoredRecord> stored = s.records(0, size + 1);
      assertEquals(size, stored.size());
      for (int i = 0; i < size; i++) {
        StoredRecord r = stored.get(i);
        assertEquals(i, r.index());
        assertEquals("k" + i, r.idempotencyKey());
        assertEquals("hash-k" + i, r.contentHash());
        assertArrayEquals(new byte[] {1, 2, (byte) i}, r.canonical());
        assertEquals(i < first ? first : size, r.checkpointSize());
        assertEquals(42, r.capturedAt());
      }
      assertEquals(size, s.logState().size());
    }
  }

  @Test
  void duplicateKeyInsideABatchRollsBackTheWholeBatch() throws Exception {
    try (EdgeStore s = EdgeStore.open(EdgeStore.fileIn(dir), Durability.FULL)) {
      s.append(batch(0, List.of(record(0, "a"))));
      List<NewRecord> records = new ArrayList<>();
      for (int i = 1; i <= 256; i++) {
        records.add(record(i, i == 135 ? "a" : "k" + i));
      }
      DuplicateKeyException e =
          assertThrows(DuplicateKeyException.class, () -> s.append(batch(1, records)));
      assertEquals("a", e.idempotencyKey());
      assertEquals(1, s.logState().size());
      assertEquals(1, s.recordCount());
      assertEquals(1, s.checkpoints().size());
      s.append(batch(1, List.of(record(1, "after"))));
      assertEquals(2, s.recordCount());
    }
  }

  @Test
  void appendAfterCompactingPreparesItsStatementsAgain() throws Exception {
    try (EdgeStore s = EdgeStore.open(EdgeStore.fileIn(dir), Durability.FULL)) {
      s.append(batch(0, List.of(record(0, "a"))));
      s.compact();
      s.append(batch(1, List.of(record(1, "b"))));
      assertEquals(List.of("a", "b"), s.keysFrom(0));
    }
  }

  @Test
  void appendAtAStaleSizeIsRefused() throws Exception {
    try (EdgeStore s = EdgeStore.open(EdgeStore.fileIn(dir), Durability.FULL)) {
      s.append(batch(0, List.of(record(0, "a"))));
      StoreException e =
          assertThrows(StoreException.class, () -> s.append(batch(0, List.of(record(0, "b")))));
      assertTrue(e.getMessage().contains("want the committed size 1"), e.getMessage());
    }
  }

  @Test
  void appendAtAStaleSizeLeavesTheLogAsItWas() throws Exception {
    try (EdgeStore s = EdgeStore.open(EdgeStore.fileIn(dir), Durability.FULL)) {
      s.append(batch(0, List.of(record(0, "a"), record(1, "b"))));
      // Behind the committed size, and ahead of it (a gap): both refused before any row is written.
      for (long stale : new long[] {1, 3}) {
        StoreException e =
            assertThrows(
                StoreException.class,
                () -> s.append(batch(stale, List.of(record(stale, "c" + stale)))));
        assertTrue(e.getMessage().contains("want the committed size 2"), e.getMessage());
      }
      assertEquals(2, s.logState().size());
      assertEquals(List.of("a", "b"), s.keysFrom(0));
      assertEquals(1, s.checkpoints().size());
      assertEquals(Map.of("captures", 2L), s.counters());
      s.append(batch(2, List.of(record(2, "c"))));
      assertEquals(3, s.logState().size());
    }
  }

  @Test
  void countersOnlyBatchAtAStaleSizeIsRefused() throws Exception {
    try (EdgeStore s = EdgeStore.open(EdgeStore.fileIn(dir), Durability.FULL)) {
      s.append(batch(0, List.of(record(0, "a"))));
      StoreException e =
          assertThrows(
              StoreException.class,
              () ->
                  s.append(new AppendBatch(0, List.of(), null, null, 7, Map.of("duplicates", 1L))));
      assertTrue(e.getMessage().contains("want the committed size 1"), e.getMessage());
      assertEquals(Map.of("captures", 1L), s.counters());
      s.append(new AppendBatch(1, List.of(), null, null, 7, Map.of("duplicates", 1L)));
      assertEquals(Map.of("captures", 1L, "duplicates", 1L), s.counters());
    }
  }

  @Test
  void batchIndicesMustBeContiguous() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> batch(5, List.of(record(5, "a"), record(7, "b"))));
    assertTrue(e.getMessage().contains("want 6"), e.getMessage());
  }

  @Test
  void outcomesAndReceiptsAreStored() throws Exception {
    try (EdgeStore s = EdgeStore.open(EdgeStore.fileIn(dir), Durability.FULL)) {
      s.append(batch(0, List.of(record(0, "a"), record(1, "b"))));
      s.applyOutcomes(List.of(new OutcomeUpdate(0, "CONFIRMED", 17L, "m1", null, 99)));
      s.saveReceipt(2, "receipt", 100);
      StoredRecord a = s.findByKey("a").orElseThrow();
      assertEquals("CONFIRMED", a.outcome());
      assertEquals(17L, a.seq());
      assertEquals(Map.of("CONFIRMED", 1L, "UNSYNCED", 1L), s.outcomeCounts());
      assertEquals(2, s.latestReceipt().orElseThrow().size());
      StoreException missing =
          assertThrows(
              StoreException.class,
              () -> s.applyOutcomes(List.of(new OutcomeUpdate(5, "CONFIRMED", 1L, "m", null, 1))));
      assertTrue(missing.getMessage().contains("outcome for index 5"), missing.getMessage());
    }
  }

  @Test
  void aBatchAnswerStoresItsOutcomesAndReceiptTogetherOrNeither() throws Exception {
    try (EdgeStore s = EdgeStore.open(EdgeStore.fileIn(dir), Durability.FULL)) {
      s.append(batch(0, List.of(record(0, "a"), record(1, "b"))));
      StoreException missing =
          assertThrows(
              StoreException.class,
              () ->
                  s.acceptBatch(
                      List.of(
                          new OutcomeUpdate(0, "CONFIRMED", 17L, "m1", null, 99),
                          new OutcomeUpdate(5, "CONFIRMED", 1L, "m", null, 1)),
                      2,
                      "receipt",
                      100));
      assertTrue(missing.getMessage().contains("outcome for index 5"), missing.getMessage());
      assertEquals(Optional.empty(), s.latestReceipt(), "no receipt without its outcomes");
      assertEquals(Map.of("UNSYNCED", 2L), s.outcomeCounts(), "no outcome of the failed answer");
      s.acceptBatch(
          List.of(
              new OutcomeUpdate(0, "CONFIRMED", 17L, "m1", null, 99),
              new OutcomeUpdate(1, "DUPLICATE", 3L, "m0", null, 99)),
          2,
          "receipt",
          100);
      assertEquals(2, s.latestReceipt().orElseThrow().size());
      assertEquals(Map.of("CONFIRMED", 1L, "DUPLICATE", 1L), s.outcomeCounts());
    }
  }

  @Test
  void bloomSnapshotRoundTrips() throws Exception {
    BloomConfig config = new BloomConfig(100, 0.01, Duration.ofDays(1));
    RotatingBloom bloom = RotatingBloom.create(config, Clock.systemUTC());
    for (int i = 0; i < 150; i++) {
      bloom.put("k" + i);
    }
    try (EdgeStore s = EdgeStore.open(EdgeStore.fileIn(dir), Durability.NORMAL)) {
      s.saveBloom(bloom.snapshot(150));
      BloomSnapshot back = s.loadBloom().orElseThrow();
      RotatingBloom restored = RotatingBloom.restore(config, Clock.systemUTC(), back);
      assertEquals(150, back.coveredSize());
      assertEquals(1, restored.rotations());
      for (int i = 0; i < 150; i++) {
        assertTrue(restored.mightContain("k" + i));
      }
    }
  }

  @Test
  void sizeOnDiskCountsTheWriteAheadLog() throws Exception {
    try (EdgeStore s = EdgeStore.open(EdgeStore.fileIn(dir), Durability.FULL)) {
      s.append(batch(0, List.of(record(0, "a"))));
      Path wal = dir.resolve("agent.db-wal");
      long expected = Files.size(EdgeStore.fileIn(dir)) + (Files.exists(wal) ? Files.size(wal) : 0);
      assertEquals(expected, s.sizeOnDiskBytes());
    }
  }
}
