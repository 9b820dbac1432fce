package dev.danmakuledger.bench.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.danmakuledger.demo.harness.EdgeNode;
import dev.danmakuledger.demo.harness.LedgerReader;
import dev.danmakuledger.edge.store.StoredCheckpoint;
import dev.danmakuledger.edge.store.StoredRecord;
import dev.danmakuledger.protocol.record.CanonicalRecord;
import dev.danmakuledger.protocol.record.DanmakuRecord;
import dev.danmakuledger.protocol.wire.LogState;
import dev.danmakuledger.protocol.wire.RoomMessage;
import java.io.IOException;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/** Comparisons of agent state with what the server returns over HTTP. */
final class LedgerAssertions {
  private LedgerAssertions() {}

  /**
   * Every record of the agent has an outcome that equals the server's stored row (room, seq,
   * message id, status, device and index, text), a receipt covers the log, and the server verified
   * the agent's root.
   */
  static void agentMatchesServer(EdgeNode node, LedgerReader reader) throws IOException {
    List<StoredRecord> records = node.records();
    for (StoredRecord r : records) {
      assertNotNull(
          r.outcome(), "record " + r.index() + " of " + node.deviceId() + " has no outcome");
      DanmakuRecord rec = CanonicalRecord.decode(r.canonical());
      RoomMessage m =
          reader
              .message(r.idempotencyKey())
              .orElseThrow(() -> new AssertionError("server has no row for " + r.idempotencyKey()));
      String where = node.deviceId() + "[" + r.index() + "] " + r.idempotencyKey();
      assertEquals(rec.room(), m.room(), where);
      assertEquals(r.seq(), m.seq(), where);
      assertEquals(r.messageId(), m.messageId(), where);
      assertEquals(rec.text(), m.text(), where);
      if (!"DUPLICATE".equals(r.outcome())) {
        assertEquals(r.outcome(), m.status().name(), where);
        assertEquals(node.deviceId(), m.deviceId(), where);
        assertEquals(r.index(), m.deviceIndex(), where);
      }
    }
    long receipt = node.store().latestReceipt().map(StoredCheckpoint::size).orElse(-1L);
    assertEquals(records.size(), receipt, "receipt of " + node.deviceId());
    LogState log = reader.log(node.deviceId());
    assertEquals(records.size(), log.verifiedSize(), "verified size of " + node.deviceId());
    assertEquals(node.rootHex(), log.rootHex(), "root of " + node.deviceId());
  }

  /**
   * Reads every slot of a room and checks that seqs run 1..n without a gap, strictly increasing,
   * and that no key appears twice.
   */
  static List<RoomMessage> roomIsComplete(LedgerReader reader, String room) throws IOException {
    List<RoomMessage> slots = reader.room(room);
    Set<String> keys = new HashSet<>();
    for (int i = 0; i < slots.size(); i++) {
      RoomMessage m = slots.get(i);
      assertEquals(i + 1L, m.seq(), room + ": slot " + i);
      if (m.status() != RoomMessage.Status.TOMBSTONE) {
        assertTrue(keys.add(m.idempotencyKey()), room + ": key twice " + m.idempotencyKey());
      }
    }
    return slots;
  }

  static long count(List<RoomMessage> slots, RoomMessage.Status status) {
    return slots.stream().filter(m -> m.status() == status).count();
  }
}
