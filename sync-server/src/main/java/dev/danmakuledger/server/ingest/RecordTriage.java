package dev.danmakuledger.server.ingest;

import dev.danmakuledger.protocol.record.CanonicalRecord;
import dev.danmakuledger.protocol.record.DanmakuRecord;
import dev.danmakuledger.protocol.record.InvalidRecordException;
import dev.danmakuledger.protocol.wire.Outcome;
import dev.danmakuledger.server.storage.DeviceRecordRow;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

/**
 * Decides, before anything is admitted in Redis, what each record of a verified batch can be
 * (docs/architecture.md §4, record outcomes): a record the server can never accept (empty, longer
 * than any valid record, undecodable, of another device or index, in a room no URL can address) is
 * REJECTED in its place with a reason, so the device log still verifies and the device syncs past
 * it; every other record is a moderated {@link Candidate} for its room. Every field of a decodable
 * record fits its SQL column (the protocol's limits are below the column widths), so nothing
 * admitted fails in SQL for size.
 */
final class RecordTriage {
  /** Reason of a record with no bytes. */
  static final String EMPTY = "empty";

  /** Reason of a record longer than any valid encoding. */
  static final String OVERSIZED = "oversized";

  /**
   * Reason of a record whose room is {@code .} or {@code ..}: valid bytes, but a room no URL can
   * address (docs/canonical-record.md, layout field 4), so it is never numbered or logged.
   */
  static final String INVALID_ROOM = "invalid-room";

  /** One decoded, valid, moderated record waiting for its room admission. */
  record Candidate(
      int position,
      long index,
      byte[] canonical,
      DanmakuRecord record,
      String key,
      String contentHash,
      Moderation.Decision decision) {}

  /**
   * The triage of a batch.
   *
   * @param rejected the REJECTED rows by position in the batch (null where a candidate is)
   * @param byRoom the candidates grouped by room, rooms in order of first appearance
   */
  record Triage(DeviceRecordRow[] rejected, Map<String, List<Candidate>> byRoom) {}

  /**
   * Batches of at least this many records are decoded and moderated on the common fork-join pool as
   * well: the records are independent, and a device catching up sends one large batch at a time.
   */
  static final int PARALLEL_MIN = 256;

  private final Moderation moderation;

  RecordTriage(Moderation moderation) {
    this.moderation = moderation;
  }

  Triage triage(String deviceId, long oldSize, List<byte[]> canonicals) {
    int n = canonicals.size();
    DeviceRecordRow[] rejected = new DeviceRecordRow[n];
    Candidate[] candidates = new Candidate[n];
    IntStream positions = IntStream.range(0, n);
    if (n >= PARALLEL_MIN) {
      positions = positions.parallel();
    }
    positions.forEach(i -> judge(deviceId, oldSize, i, canonicals.get(i), candidates, rejected));
    Map<String, List<Candidate>> byRoom = new LinkedHashMap<>();
    for (Candidate c : candidates) {
      if (c != null) {
        byRoom.computeIfAbsent(c.record().room(), r -> new ArrayList<>()).add(c);
      }
    }
    return new Triage(rejected, byRoom);
  }

  /**
   * Puts the record at {@code position} of the batch in its place: a {@link Candidate} in {@code
   * candidates}, or its REJECTED row in {@code rejected}.
   */
  private void judge(
      String deviceId,
      long oldSize,
      int position,
      byte[] bytes,
      Candidate[] candidates,
      DeviceRecordRow[] rejected) {
    long index = oldSize + position;
    if (bytes.length == 0) {
      rejected[position] = rejected(deviceId, index, null, bytes, null, EMPTY);
      return;
    }
    if (bytes.length > CanonicalRecord.MAX_ENCODED_LENGTH) {
      rejected[position] = rejected(deviceId, index, null, bytes, null, OVERSIZED);
      return;
    }
    DanmakuRecord rec;
    try {
      rec = CanonicalRecord.decode(bytes);
    } catch (InvalidRecordException e) {
      rejected[position] = rejected(deviceId, index, null, bytes, null, "invalid-" + e.field());
      return;
    }
    String key = rec.key().toString();
    if (!rec.deviceId().equals(deviceId)) {
      rejected[position] = rejected(deviceId, index, key, bytes, rec.room(), "wrong-device");
    } else if (rec.index() != index) {
      rejected[position] = rejected(deviceId, index, key, bytes, rec.room(), "wrong-index");
    } else if (!DanmakuRecord.isAddressableRoom(rec.room())) {
      rejected[position] = rejected(deviceId, index, key, bytes, null, INVALID_ROOM);
    } else {
      candidates[position] =
          new Candidate(
              position, index, bytes, rec, key, rec.contentHash(), moderation.judge(rec.text()));
    }
  }

  private static DeviceRecordRow rejected(
      String deviceId, long index, String key, byte[] bytes, String room, String reason) {
    return new DeviceRecordRow(
        deviceId, index, key, bytes, Outcome.REJECTED, room, null, null, null, reason);
  }
}
