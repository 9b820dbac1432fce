package dev.danmakuledger.edge.verify;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.danmakuledger.edge.keys.DeviceIdentity;
import dev.danmakuledger.edge.store.EdgeStore;
import dev.danmakuledger.edge.store.StoreException;
import dev.danmakuledger.edge.testing.TestDevice;
import dev.danmakuledger.merkle.checkpoint.Checkpoint;
import dev.danmakuledger.merkle.checkpoint.Checkpoints;
import dev.danmakuledger.merkle.checkpoint.NoteSigner;
import dev.danmakuledger.merkle.hash.Rfc6962;
import dev.danmakuledger.protocol.DeviceLog;
import dev.danmakuledger.protocol.record.CanonicalRecord;
import dev.danmakuledger.protocol.record.DanmakuRecord;
import dev.danmakuledger.protocol.testing.MutableClock;
import java.io.RandomAccessFile;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Instant;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Corruptions of a stored log, each named by what was done; verify must fail and say what. */
class TamperTest {
  private static final int RECORDS = 40;

  @TempDir Path dir;
  private DeviceIdentity identity;

  @BeforeEach
  void captureSomeRecords() throws Exception {
    TestDevice device =
        TestDevice.create(dir, new MutableClock(Instant.parse("2026-05-01T00:00:00Z")));
    for (int i = 0; i < RECORDS; i++) {
      device.capture.capture(device.request("user" + (i % 3), i, "message " + i + " 弹幕"));
    }
    identity = device.identity;
    assertTrue(device.verify().ok());
    device.close();
  }

  private VerifyReport verify() throws StoreException {
    try (EdgeStore store = EdgeStore.openReadOnly(EdgeStore.fileIn(dir))) {
      return new LogVerifier("dev-1", identity.signer().verifier()).verify(store);
    }
  }

  private Connection sql() throws Exception {
    return DriverManager.getConnection("jdbc:sqlite:" + EdgeStore.fileIn(dir));
  }

  private static byte[] canonicalAt(Connection c, long idx) throws Exception {
    try (PreparedStatement ps = c.prepareStatement("SELECT canonical FROM records WHERE idx = ?")) {
      ps.setLong(1, idx);
      try (ResultSet rs = ps.executeQuery()) {
        assertTrue(rs.next());
        return rs.getBytes(1);
      }
    }
  }

  private static DanmakuRecord withText(DanmakuRecord r, String text) {
    return new DanmakuRecord(
        r.key(),
        r.deviceId(),
        r.room(),
        r.user(),
        text,
        r.playbackMs(),
        r.mode(),
        r.color(),
        r.fontSize(),
        r.hlc(),
        r.index());
  }

  @Test
  void untouchedLogVerifies() throws Exception {
    VerifyReport r = verify();
    assertTrue(r.ok(), r.problem());
    assertEquals(RECORDS, r.recordsChecked());
    assertEquals(RECORDS, r.checkpointsChecked());
  }

  @Test
  void editedTextWithoutFixingTheLeafHash() throws Exception {
    try (Connection c = sql();
        PreparedStatement ps =
            c.prepareStatement("UPDATE records SET canonical = ? WHERE idx = 17")) {
      DanmakuRecord r = CanonicalRecord.decode(canonicalAt(c, 17));
      ps.setBytes(1, CanonicalRecord.encode(withText(r, "forged")));
      ps.executeUpdate();
    }
    VerifyReport r = verify();
    assertFalse(r.ok());
    assertEquals(17L, r.firstBadIndex());
    assertTrue(r.problem().contains("record was edited"), r.problem());
  }

  @Test
  void editedTextWithAConsistentLeafHashAndContentHash() throws Exception {
    try (Connection c = sql();
        PreparedStatement ps =
            c.prepareStatement(
                "UPDATE records SET canonical = ?, leaf_hash = ?, content_hash = ? WHERE idx = 23")) {
      DanmakuRecord forged = withText(CanonicalRecord.decode(canonicalAt(c, 23)), "forged");
      byte[] bytes = CanonicalRecord.encode(forged);
      ps.setBytes(1, bytes);
      ps.setBytes(2, Rfc6962.leafHash(bytes));
      ps.setString(3, forged.contentHash());
      ps.executeUpdate();
    }
    VerifyReport r = verify();
    assertFalse(r.ok());
    assertEquals(23L, r.firstBadIndex(), r.problem());
    assertTrue(r.problem().contains("checkpoint for size 24 signs root"), r.problem());
  }

  @Test
  void deletedRow() throws Exception {
    try (Connection c = sql();
        Statement st = c.createStatement()) {
      st.executeUpdate("DELETE FROM records WHERE idx = 9");
    }
    VerifyReport r = verify();
    assertFalse(r.ok());
    assertEquals(9L, r.firstBadIndex());
    assertTrue(r.problem().contains("record 9 is missing"), r.problem());
  }

  @Test
  void deletedLastRow() throws Exception {
    try (Connection c = sql();
        Statement st = c.createStatement()) {
      st.executeUpdate("DELETE FROM records WHERE idx = " + (RECORDS - 1));
    }
    VerifyReport r = verify();
    assertFalse(r.ok());
    assertEquals((long) RECORDS - 1, r.firstBadIndex());
    assertTrue(r.problem().contains("were deleted or the file was truncated"), r.problem());
  }

  @Test
  void reorderedRows() throws Exception {
    try (Connection c = sql();
        Statement st = c.createStatement()) {
      st.executeUpdate("UPDATE records SET idx = -1 WHERE idx = 5");
      st.executeUpdate("UPDATE records SET idx = 5 WHERE idx = 12");
      st.executeUpdate("UPDATE records SET idx = 12 WHERE idx = -1");
    }
    VerifyReport r = verify();
    assertFalse(r.ok());
    assertEquals(5L, r.firstBadIndex());
    assertTrue(r.problem().contains("say index 12: rows were reordered"), r.problem());
  }

  @Test
  void truncatedFile() throws Exception {
    Path file = EdgeStore.fileIn(dir);
    try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
      raf.setLength(raf.length() / 2);
    }
    VerifyReport r;
    try {
      r = verify();
    } catch (StoreException e) {
      r = new VerifyReport(false, 0, 0, null, null, "store is unreadable: " + e.getMessage());
    }
    assertFalse(r.ok());
    assertTrue(
        r.problem().contains("unreadable") || r.problem().contains("truncated"), r.problem());
  }

  @Test
  void checkpointSignedByAnotherKey() throws Exception {
    NoteSigner intruder = NoteSigner.generate(DeviceLog.origin("dev-1"), new SecureRandom());
    try (Connection c = sql();
        PreparedStatement ps =
            c.prepareStatement("UPDATE checkpoints SET note = ? WHERE size = 30")) {
      String original = null;
      try (Statement st = c.createStatement();
          ResultSet rs = st.executeQuery("SELECT note FROM checkpoints WHERE size = 30")) {
        assertTrue(rs.next());
        original = rs.getString(1);
      }
      Checkpoint cp =
          Checkpoints.open(original, DeviceLog.origin("dev-1"), identity.signer().verifier());
      ps.setString(1, Checkpoints.sign(cp, intruder));
      ps.executeUpdate();
    }
    VerifyReport r = verify();
    assertFalse(r.ok());
    assertTrue(r.problem().contains("checkpoint for size 30 does not verify"), r.problem());
  }

  @Test
  void rolledBackLogStateIsNoticed() throws Exception {
    try (Connection c = sql();
        Statement st = c.createStatement()) {
      st.executeUpdate("UPDATE log_state SET size = 10");
    }
    VerifyReport r = verify();
    assertFalse(r.ok());
    assertTrue(r.problem().contains("log_state says size 10"), r.problem());
  }
}
