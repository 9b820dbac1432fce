package dev.danmakuledger.server.query;

import dev.danmakuledger.protocol.error.ErrorCode;
import dev.danmakuledger.protocol.wire.AcksResponse;
import dev.danmakuledger.protocol.wire.ConsistencyProofResponse;
import dev.danmakuledger.protocol.wire.InclusionProofResponse;
import dev.danmakuledger.protocol.wire.LogState;
import dev.danmakuledger.protocol.wire.Outcome;
import dev.danmakuledger.protocol.wire.RecordOutcome;
import dev.danmakuledger.protocol.wire.RoomMessage;
import dev.danmakuledger.protocol.wire.RoomPage;
import dev.danmakuledger.protocol.wire.admin.DeviceKey;
import dev.danmakuledger.server.LedgerException;
import dev.danmakuledger.server.storage.DeviceRecordRow;
import dev.danmakuledger.server.storage.DeviceRow;
import dev.danmakuledger.server.storage.DeviceStatus;
import dev.danmakuledger.server.storage.LedgerStore;
import dev.danmakuledger.server.storage.MessageRow;
import dev.danmakuledger.server.storage.MessageStatus;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;

/**
 * The read side of the device and room API (docs/sync-server.md): log state, stored acks ("query is
 * result"), room pages with tombstones, message lookups and proofs served from stored hashes.
 *
 * <p>What anonymous callers see (docs/security.md): CONFIRMED messages in full; a PENDING or
 * REJECTED slot only as its room, seq, message id and status, without text, user, key or device;
 * proofs and canonical bytes only of records whose message is CONFIRMED. Operators ({@code operator
 * = true}, the admin token) see everything.
 */
public final class LedgerQueries {
  /** Most acks returned by one call. */
  public static final int MAX_ACKS = 10_000;

  /** Most room messages returned by one page. */
  public static final int MAX_PAGE = 1_000;

  private static final HexFormat HEX = HexFormat.of();

  private final LedgerStore store;
  private final DeviceTrees trees;

  public LedgerQueries(LedgerStore store) {
    this.store = store;
    this.trees = new DeviceTrees(store);
  }

  private DeviceRow device(String deviceId) {
    return store
        .device(deviceId)
        .orElseThrow(
            () ->
                new LedgerException(
                    ErrorCode.NOT_FOUND, "device " + deviceId + " is not enrolled"));
  }

  public LogState log(String deviceId) {
    DeviceRow d = device(deviceId);
    return new LogState(
        d.id(),
        d.verifiedSize(),
        d.verifiedSize() == 0 ? null : HEX.formatHex(d.rootHash()),
        d.lastCheckpoint(),
        d.lastReceipt(),
        d.status() == DeviceStatus.QUARANTINED
            ? LogState.Status.QUARANTINED
            : LogState.Status.VERIFIED);
  }

  public DeviceKey key(String deviceId) {
    DeviceRow d = device(deviceId);
    return new DeviceKey(d.id(), d.verifierKey());
  }

  /** Stored outcomes of indices [from, to), clamped to the verified size. */
  public AcksResponse acks(String deviceId, long from, Long to) {
    DeviceRow d = device(deviceId);
    long end = Math.min(to == null ? d.verifiedSize() : to, d.verifiedSize());
    end = Math.min(end, from + MAX_ACKS);
    if (from > end) {
      end = from;
    }
    List<RecordOutcome> out = new ArrayList<>();
    for (DeviceRecordRow r : store.records(deviceId, from, end)) {
      out.add(r.wire());
    }
    return new AcksResponse(deviceId, from, end, out);
  }

  public RoomMessage messageByKey(String key, boolean operator) {
    return store
        .messageByKey(key)
        .map(m -> view(m, operator))
        .orElseThrow(() -> new LedgerException(ErrorCode.NOT_FOUND, "no message with key " + key));
  }

  public RoomMessage messageById(long id, boolean operator) {
    return store
        .messageById(id)
        .map(m -> view(m, operator))
        .orElseThrow(() -> new LedgerException(ErrorCode.NOT_FOUND, "no message with id " + id));
  }

  public RoomMessage message(String room, long seq, boolean operator) {
    return store
        .message(room, seq)
        .map(m -> view(m, operator))
        .orElseThrow(
            () -> new LedgerException(ErrorCode.NOT_FOUND, "room " + room + " has no seq " + seq));
  }

  /** Slots after {@code after} in seq order, tombstones included; {@code next} resumes. */
  public RoomPage room(String room, long after, int limit, boolean operator) {
    List<RoomMessage> out = new ArrayList<>();
    long next = after;
    for (MessageRow m : store.roomPage(room, after, Math.min(limit, MAX_PAGE))) {
      out.add(view(m, operator));
      next = m.seq();
    }
    return new RoomPage(out, next);
  }

  /**
   * The inclusion proof of a record with its canonical bytes.
   *
   * @throws LedgerException UNAUTHENTICATED when {@code operator} is false and the record's message
   *     is not CONFIRMED
   */
  public InclusionProofResponse inclusion(
      String deviceId, long index, Long size, boolean operator) {
    DeviceRow d = device(deviceId);
    long n = size == null ? d.verifiedSize() : size;
    if (n > d.verifiedSize() || index >= n) {
      throw new LedgerException(
          ErrorCode.INVALID_FIELD,
          "index/size: got index "
              + index
              + " size "
              + n
              + ", want 0 <= index < size <= verified size "
              + d.verifiedSize());
    }
    List<DeviceRecordRow> leaf = store.records(deviceId, index, index + 1);
    if (leaf.size() != 1) {
      throw new IllegalStateException(
          "device " + deviceId + " record " + index + ": got " + leaf.size() + " rows, want 1");
    }
    if (!operator && !isPublic(leaf.get(0))) {
      throw new LedgerException(
          ErrorCode.UNAUTHENTICATED,
          "record "
              + index
              + " of device "
              + deviceId
              + " is not a CONFIRMED message: its proof and canonical bytes need the admin token"
              + " (Authorization: Bearer <contents of admin.token>)");
    }
    List<String> proof = trees.inclusion(deviceId, index, n).stream().map(HEX::formatHex).toList();
    return new InclusionProofResponse(
        deviceId,
        index,
        n,
        HEX.formatHex(trees.leafHash(deviceId, index)),
        proof,
        HEX.formatHex(trees.rootAt(deviceId, n)),
        n == d.verifiedSize() ? d.lastCheckpoint() : null,
        Base64.getEncoder().encodeToString(leaf.get(0).canonical()));
  }

  public ConsistencyProofResponse consistency(String deviceId, long from, long to) {
    DeviceRow d = device(deviceId);
    if (from > to || to > d.verifiedSize()) {
      throw new LedgerException(
          ErrorCode.INVALID_FIELD,
          "from/to: got "
              + from
              + ".."
              + to
              + ", want 0 <= from <= to <= verified size "
              + d.verifiedSize());
    }
    List<String> proof =
        trees.consistency(deviceId, from, to).stream().map(HEX::formatHex).toList();
    return new ConsistencyProofResponse(
        deviceId,
        from,
        to,
        proof,
        HEX.formatHex(trees.rootAt(deviceId, from)),
        HEX.formatHex(trees.rootAt(deviceId, to)));
  }

  /**
   * True when a record's content may be shown to anyone: it was stored (or is a duplicate of) a
   * message that is CONFIRMED now.
   */
  private boolean isPublic(DeviceRecordRow r) {
    Outcome o = r.outcome();
    if (o != Outcome.CONFIRMED && o != Outcome.PENDING && o != Outcome.DUPLICATE) {
      return false;
    }
    if (r.room() == null || r.seq() == null) {
      return false;
    }
    return store
        .message(r.room(), r.seq())
        .map(m -> m.status() == MessageStatus.CONFIRMED)
        .orElse(false);
  }

  /** The slot as this caller may see it: operators and CONFIRMED messages in full. */
  static RoomMessage view(MessageRow m, boolean operator) {
    if (operator
        || m.status() == MessageStatus.CONFIRMED
        || m.status() == MessageStatus.TOMBSTONE) {
      return wire(m);
    }
    return new RoomMessage(
        m.room(),
        m.seq(),
        m.messageId() == null ? null : Long.toString(m.messageId()),
        null,
        null,
        null,
        null,
        null,
        0,
        0,
        0,
        wireStatus(m.status()),
        null);
  }

  /** The full wire form of a stored slot. */
  public static RoomMessage wire(MessageRow m) {
    return new RoomMessage(
        m.room(),
        m.seq(),
        m.messageId() == null ? null : Long.toString(m.messageId()),
        m.idempotencyKey(),
        m.deviceId(),
        m.user(),
        m.text(),
        m.playbackMs(),
        m.mode(),
        m.color(),
        m.fontSize(),
        wireStatus(m.status()),
        m.deviceIndex());
  }

  private static RoomMessage.Status wireStatus(MessageStatus status) {
    return switch (status) {
      case CONFIRMED -> RoomMessage.Status.CONFIRMED;
      case PENDING -> RoomMessage.Status.PENDING;
      case REJECTED -> RoomMessage.Status.REJECTED;
      case TOMBSTONE -> RoomMessage.Status.TOMBSTONE;
    };
  }
}
