package dev.danmakuledger.server.roomlog;

import dev.danmakuledger.merkle.tiles.TileException;
import dev.danmakuledger.merkle.tiles.TileId;
import dev.danmakuledger.merkle.tiles.TileReader;
import dev.danmakuledger.protocol.error.ErrorCode;
import dev.danmakuledger.protocol.room.AuditBundle;
import dev.danmakuledger.protocol.room.RoomLog;
import dev.danmakuledger.server.LedgerException;
import dev.danmakuledger.server.query.DeviceTrees;
import dev.danmakuledger.server.storage.DeviceRecordRow;
import dev.danmakuledger.server.storage.DeviceRow;
import dev.danmakuledger.server.storage.LedgerStore;
import dev.danmakuledger.server.storage.MessageRow;
import dev.danmakuledger.server.storage.MessageStatus;
import dev.danmakuledger.server.storage.RoomLogRow;
import dev.danmakuledger.server.storage.RoomLogStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

/**
 * Assembles audit bundles (docs/room-log.md, "Audit bundle") from stored state only: the entry and
 * its inclusion proof from the room log's stored tiles at the published checkpoint, the record and
 * its inclusion proof from the device log's stored nodes at the device's last receipt. Who may read
 * what follows docs/security.md: anyone for a CONFIRMED message, the admin token for PENDING and
 * REJECTED ones, as for the device proofs.
 */
public final class AuditBundles {
  private static final HexFormat HEX = HexFormat.of();
  private static final Base64.Encoder B64 = Base64.getEncoder();

  private final LedgerStore ledger;
  private final RoomLogStore logs;
  private final DeviceTrees trees;

  public AuditBundles(LedgerStore ledger, RoomLogStore logs) {
    this.ledger = ledger;
    this.logs = logs;
    this.trees = new DeviceTrees(ledger);
  }

  /**
   * The bundle of room number {@code seq}.
   *
   * @throws LedgerException NOT_FOUND (no such number), TOMBSTONE, UNAUTHENTICATED (not CONFIRMED
   *     and no admin token), NOT_INTEGRATED (not yet in the room log; retry after 1 s)
   */
  public AuditBundle bundle(String room, long seq, boolean operator) {
    MessageRow m =
        ledger
            .message(room, seq)
            .orElseThrow(
                () ->
                    new LedgerException(
                        ErrorCode.NOT_FOUND, "room " + room + " has no seq " + seq));
    if (m.status() == MessageStatus.TOMBSTONE) {
      throw new LedgerException(
          ErrorCode.TOMBSTONE,
          "room " + room + " seq " + seq + " is a tombstone (" + m.reason() + "): no message");
    }
    if (!operator && m.status() != MessageStatus.CONFIRMED) {
      throw new LedgerException(
          ErrorCode.UNAUTHENTICATED,
          "room "
              + room
              + " seq "
              + seq
              + " is not a CONFIRMED message: its bundle needs the admin token"
              + " (Authorization: Bearer <contents of admin.token>)");
    }
    RoomLogRow head = logs.log(room).orElse(null);
    if (head == null || head.checkpoint() == null || head.size() < seq) {
      throw new LedgerException(
          ErrorCode.NOT_INTEGRATED,
          "room "
              + room
              + " seq "
              + seq
              + " is not in the room log yet (integrated size "
              + (head == null ? 0 : head.size())
              + "); retry shortly",
          Map.of("retryAfterSeconds", 1L));
    }
    long leaf = RoomLog.leafOfSeq(seq);
    byte[] entry;
    List<byte[]> roomProof;
    try {
      TileReader reader = new TileReader(logs.tiles(room), head.size());
      entry = reader.entries(leaf / TileId.FULL_WIDTH).get((int) (leaf % TileId.FULL_WIDTH));
      roomProof = reader.inclusionProof(leaf);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (TileException e) {
      throw new IllegalStateException("room " + room + " log tiles: " + e.getMessage(), e);
    }
    DeviceRow d = device(m);
    return new AuditBundle(
        AuditBundle.FORMAT,
        room,
        seq,
        B64.encodeToString(entry),
        head.checkpoint(),
        new AuditBundle.Inclusion(leaf, head.size(), hex(roomProof)),
        m.deviceId(),
        B64.encodeToString(record(m).canonical()),
        new AuditBundle.Inclusion(
            m.deviceIndex(),
            d.verifiedSize(),
            hex(trees.inclusion(m.deviceId(), m.deviceIndex(), d.verifiedSize()))),
        d.lastReceipt());
  }

  private DeviceRow device(MessageRow m) {
    return ledger
        .device(m.deviceId())
        .orElseThrow(
            () -> new IllegalStateException("message device " + m.deviceId() + " is not stored"));
  }

  private DeviceRecordRow record(MessageRow m) {
    List<DeviceRecordRow> rows = ledger.records(m.deviceId(), m.deviceIndex(), m.deviceIndex() + 1);
    if (rows.size() != 1) {
      throw new IllegalStateException(
          "device "
              + m.deviceId()
              + " record "
              + m.deviceIndex()
              + ": got "
              + rows.size()
              + " rows, want 1");
    }
    return rows.get(0);
  }

  private static List<String> hex(List<byte[]> hashes) {
    return hashes.stream().map(HEX::formatHex).toList();
  }
}
