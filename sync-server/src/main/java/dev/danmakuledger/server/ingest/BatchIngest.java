package dev.danmakuledger.server.ingest;

import dev.danmakuledger.lua.Admission;
import dev.danmakuledger.lua.AdmitItem;
import dev.danmakuledger.merkle.checkpoint.Checkpoint;
import dev.danmakuledger.merkle.checkpoint.Checkpoints;
import dev.danmakuledger.merkle.checkpoint.NoteSigner;
import dev.danmakuledger.merkle.checkpoint.NoteVerificationException;
import dev.danmakuledger.merkle.checkpoint.NoteVerifier;
import dev.danmakuledger.merkle.checkpoint.SignedNote;
import dev.danmakuledger.merkle.compact.CompactRange;
import dev.danmakuledger.merkle.hash.Rfc6962;
import dev.danmakuledger.protocol.DeviceLog;
import dev.danmakuledger.protocol.clock.Hlc;
import dev.danmakuledger.protocol.error.ErrorCode;
import dev.danmakuledger.protocol.record.CanonicalRecord;
import dev.danmakuledger.protocol.record.DanmakuRecord;
import dev.danmakuledger.protocol.record.InvalidRecordException;
import dev.danmakuledger.protocol.wire.BatchMetadata;
import dev.danmakuledger.protocol.wire.BatchResponse;
import dev.danmakuledger.protocol.wire.Outcome;
import dev.danmakuledger.protocol.wire.RecordOutcome;
import dev.danmakuledger.server.error.LedgerException;
import dev.danmakuledger.server.events.AdminHub;
import dev.danmakuledger.server.events.Events;
import dev.danmakuledger.server.events.RoomHub;
import dev.danmakuledger.server.query.DeviceTrees;
import dev.danmakuledger.server.redis.MessageIds;
import dev.danmakuledger.server.redis.RoomSequencer;
import dev.danmakuledger.server.storage.AlertRow;
import dev.danmakuledger.server.storage.BatchCommit;
import dev.danmakuledger.server.storage.Counters;
import dev.danmakuledger.server.storage.DeviceRecordRow;
import dev.danmakuledger.server.storage.DeviceRow;
import dev.danmakuledger.server.storage.DeviceStatus;
import dev.danmakuledger.server.storage.EdgeCounters;
import dev.danmakuledger.server.storage.LedgerStore;
import dev.danmakuledger.server.storage.MessageRow;
import dev.danmakuledger.server.storage.MessageStatus;
import dev.danmakuledger.server.storage.NodeRow;
import dev.danmakuledger.server.storage.StaleDeviceException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The batch pipeline of ARCHITECTURE §4: the server as witness of a device log.
 *
 * <ol>
 *   <li>the device must be enrolled (401) and not quarantined (403);
 *   <li>the checkpoint must be signed by the enrolled key for this device's origin (403);
 *   <li>{@code oldSize} must be the verified size (409 with the server's size), except for a resend
 *       of records the server already verified, which gets the stored outcomes (a replay), or a
 *       rewrite of them, which is a fork (device quarantined, alert, 409);
 *   <li>the leaf hashes appended to the stored compact range must give the checkpoint root (422);
 *   <li>each record is decoded, validated and moderated, admitted in Redis per room (dedupe and
 *       seq), checked against SQL (the last guard) and committed with the new verified size and the
 *       receipt in one transaction, optimistically locked on the device row.
 * </ol>
 *
 * Thread-safe; nothing of a refused batch is stored.
 */
public final class BatchIngest {
  /** Attempts of a batch whose commit lost a race before answering 409 version-conflict. */
  static final int MAX_ATTEMPTS = 5;

  private static final HexFormat HEX = HexFormat.of();

  private final LedgerStore store;
  private final DeviceTrees trees;
  private final RoomSequencer sequencer;
  private final MessageIds messageIds;
  private final NoteSigner serverSigner;
  private final Moderation moderation;
  private final RoomHub rooms;
  private final AdminHub admin;
  private final Clock clock;

  public BatchIngest(
      LedgerStore store,
      RoomSequencer sequencer,
      MessageIds messageIds,
      NoteSigner serverSigner,
      List<String> bannedWords,
      Pattern reviewRule,
      RoomHub rooms,
      AdminHub admin,
      Clock clock) {
    this.store = Objects.requireNonNull(store, "store");
    this.trees = new DeviceTrees(store);
    this.sequencer = Objects.requireNonNull(sequencer, "sequencer");
    this.messageIds = Objects.requireNonNull(messageIds, "messageIds");
    this.serverSigner = Objects.requireNonNull(serverSigner, "serverSigner");
    this.moderation = new Moderation(bannedWords, reviewRule);
    this.rooms = Objects.requireNonNull(rooms, "rooms");
    this.admin = Objects.requireNonNull(admin, "admin");
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  /**
   * Verifies and stores one batch.
   *
   * @param deviceId the device named in the URL
   * @param oldSize the size the device believes the server has verified
   * @param canonicals the records' canonical bytes, indices {@code oldSize..}; the HTTP boundary
   *     has checked their count, indices and encoding
   * @param checkpointNote the signed checkpoint for {@code oldSize + canonicals.size()}
   * @param metadata the edge counters, or null
   * @throws LedgerException for every refusal, with its error code
   */
  public IngestResult ingest(
      String deviceId,
      long oldSize,
      List<byte[]> canonicals,
      String checkpointNote,
      BatchMetadata metadata) {
    for (int attempt = 1; ; attempt++) {
      try {
        return attempt(deviceId, oldSize, canonicals, checkpointNote, metadata);
      } catch (StaleDeviceException e) {
        if (attempt >= MAX_ATTEMPTS) {
          throw new LedgerException(
              ErrorCode.VERSION_CONFLICT,
              "device log "
                  + deviceId
                  + " changed concurrently "
                  + attempt
                  + " times; fetch /v1/devices/"
                  + deviceId
                  + "/log and resend from its verified size");
        }
      }
    }
  }

  private IngestResult attempt(
      String deviceId,
      long oldSize,
      List<byte[]> canonicals,
      String checkpointNote,
      BatchMetadata metadata)
      throws StaleDeviceException {
    DeviceRow device =
        store
            .device(deviceId)
            .orElseThrow(
                () ->
                    new LedgerException(
                        ErrorCode.UNAUTHENTICATED,
                        "device "
                            + deviceId
                            + " is not enrolled; enroll it with POST /v1/devices"));
    if (device.status() == DeviceStatus.QUARANTINED) {
      throw new LedgerException(
          ErrorCode.DEVICE_QUARANTINED,
          "device "
              + deviceId
              + " is quarantined ("
              + device.statusReason()
              + "); ask an operator");
    }
    Checkpoint cp = openCheckpoint(device, checkpointNote);
    long newSize = oldSize + canonicals.size();
    if (cp.size() != newSize) {
      throw new LedgerException(
          ErrorCode.INVALID_FIELD,
          "checkpoint: got size " + cp.size() + ", want oldSize + records = " + newSize);
    }
    long now = clock.millis();
    if (oldSize > device.verifiedSize()) {
      store.markSeen(deviceId, newSize, now);
      throw sizeMismatch(device);
    }
    if (oldSize < device.verifiedSize()) {
      return resend(device, oldSize, canonicals, cp, checkpointNote, now);
    }
    if (canonicals.isEmpty()) {
      if (!Arrays.equals(cp.root(), device.rootHash())) {
        throw fork(device, "checkpoint for verified size " + newSize + " has a different root");
      }
      return new IngestResult(response(device, List.of(), cosign(checkpointNote)), false);
    }
    CompactRange range = CompactRange.fromBytes(device.compactRange());
    List<NodeRow> nodes = new ArrayList<>(canonicals.size() * 2 + 8);
    for (byte[] bytes : canonicals) {
      range.append(
          Rfc6962.leafHash(bytes),
          (id, hash) -> nodes.add(new NodeRow(id.level(), id.index(), hash)));
    }
    byte[] root = range.root();
    if (!Arrays.equals(root, cp.root())) {
      store.addCounters(Map.of(Counters.BAD_PROOFS, 1L));
      AlertRow alert =
          store.insertAlert(
              Events.alert(
                  "BAD_PROOF",
                  "WARN",
                  device.id(),
                  "records ["
                      + oldSize
                      + ", "
                      + newSize
                      + ") of device "
                      + device.id()
                      + " do not give the root of its signed checkpoint; nothing was stored",
                  Map.of("oldSize", oldSize, "newSize", newSize),
                  now));
      admin.publish(Events.of(alert));
      throw new LedgerException(
          ErrorCode.BAD_PROOF,
          "records ["
              + oldSize
              + ", "
              + newSize
              + ") give root "
              + HEX.formatHex(root)
              + ", want the checkpoint root "
              + HEX.formatHex(cp.root())
              + "; nothing was stored",
          Map.of(
              "expectedRootHex", HEX.formatHex(cp.root()), "computedRootHex", HEX.formatHex(root)));
    }
    return append(device, oldSize, canonicals, checkpointNote, metadata, range, nodes, now);
  }

  private Checkpoint openCheckpoint(DeviceRow device, String note) {
    String origin = DeviceLog.origin(device.id());
    try {
      return Checkpoints.open(note, origin, NoteVerifier.ofEd25519(origin, device.publicKey()));
    } catch (NoteVerificationException e) {
      if (e.reason() == NoteVerificationException.Reason.MALFORMED) {
        throw new LedgerException(
            ErrorCode.INVALID_FIELD, "checkpoint: not a signed checkpoint note: " + e.getMessage());
      }
      // Unauthenticated: counted (never trusted) by the HTTP layer's SignatureFailures.
      throw new LedgerException(
          ErrorCode.BAD_SIGNATURE,
          "checkpoint is not signed by the key enrolled for "
              + device.id()
              + " for origin "
              + origin
              + " ("
              + e.reason()
              + ")");
    }
  }

  private static LedgerException sizeMismatch(DeviceRow device) {
    return new LedgerException(
        ErrorCode.SIZE_MISMATCH,
        "batch must start at the verified size "
            + device.verifiedSize()
            + "; fetch the acks and resend from there",
        Map.of("verifiedSize", device.verifiedSize()));
  }

  /** A batch starting below the verified size: a lost-reply resend, or a fork. */
  private IngestResult resend(
      DeviceRow device,
      long oldSize,
      List<byte[]> canonicals,
      Checkpoint cp,
      String note,
      long now) {
    long newSize = oldSize + canonicals.size();
    long overlapEnd = Math.min(newSize, device.verifiedSize());
    List<DeviceRecordRow> stored = store.records(device.id(), oldSize, overlapEnd);
    for (int i = 0; i < stored.size(); i++) {
      if (!Arrays.equals(stored.get(i).canonical(), canonicals.get(i))) {
        throw fork(
            device, "record " + (oldSize + i) + " differs from the one the server verified before");
      }
    }
    if (newSize > device.verifiedSize()) {
      store.markSeen(device.id(), newSize, now);
      throw sizeMismatch(device);
    }
    if (!Arrays.equals(trees.rootAt(device.id(), newSize), cp.root())) {
      throw fork(device, "checkpoint for size " + newSize + " has a different root than verified");
    }
    List<RecordOutcome> outcomes = new ArrayList<>(stored.size());
    for (DeviceRecordRow r : stored) {
      outcomes.add(outcome(r));
    }
    store.addCounters(Map.of(Counters.REPLAYS, 1L));
    return new IngestResult(response(device, outcomes, cosign(note)), true);
  }

  private LedgerException fork(DeviceRow device, String why) {
    String message = "fork detected on device " + device.id() + ": " + why + "; device quarantined";
    AlertRow alert =
        store.quarantine(
            device.id(),
            "FORK: " + why,
            Map.of(Counters.FORKS, 1L),
            Events.alert("FORK", "CRITICAL", device.id(), message, Map.of(), clock.millis()));
    admin.publish(Events.of(alert));
    return new LedgerException(ErrorCode.FORK_DETECTED, message);
  }

  private String cosign(String note) {
    return SignedNote.addSignature(note, serverSigner);
  }

  private BatchResponse response(DeviceRow device, List<RecordOutcome> outcomes, String receipt) {
    return new BatchResponse(
        device.id(),
        device.verifiedSize(),
        device.verifiedSize() == 0 ? null : HEX.formatHex(device.rootHash()),
        outcomes,
        receipt);
  }

  static RecordOutcome outcome(DeviceRecordRow r) {
    return new RecordOutcome(
        r.index(),
        r.idempotencyKey(),
        Outcome.valueOf(r.outcome()),
        r.seq(),
        r.messageId() == null ? null : Long.toString(r.messageId()),
        r.originalStatus(),
        r.reason());
  }

  /**
   * One decoded, valid, moderated record waiting for its room admission, with its key and content
   * hash computed once.
   */
  private record Candidate(
      int position,
      DanmakuRecord record,
      String key,
      String contentHash,
      Moderation.Decision decision) {}

  private IngestResult append(
      DeviceRow device,
      long oldSize,
      List<byte[]> canonicals,
      String note,
      BatchMetadata metadata,
      CompactRange range,
      List<NodeRow> nodes,
      long now)
      throws StaleDeviceException {
    String deviceId = device.id();
    int n = canonicals.size();
    DeviceRecordRow[] rows = new DeviceRecordRow[n];
    Map<String, Long> counters = new HashMap<>();
    Map<String, List<Candidate>> byRoom = new LinkedHashMap<>();
    long newestHlcMillis = -1;
    for (int i = 0; i < n; i++) {
      long index = oldSize + i;
      byte[] bytes = canonicals.get(i);
      DanmakuRecord rec;
      try {
        rec = CanonicalRecord.decode(bytes);
      } catch (InvalidRecordException e) {
        rows[i] = rejected(deviceId, index, null, bytes, null, "invalid-" + e.field());
        continue;
      }
      String key = rec.key().toString();
      if (!rec.deviceId().equals(deviceId)) {
        rows[i] = rejected(deviceId, index, key, bytes, rec.room(), "wrong-device");
      } else if (rec.index() != index) {
        rows[i] = rejected(deviceId, index, key, bytes, rec.room(), "wrong-index");
      } else {
        byRoom
            .computeIfAbsent(rec.room(), r -> new ArrayList<>())
            .add(new Candidate(i, rec, key, rec.contentHash(), moderation.judge(rec.text())));
        newestHlcMillis = Math.max(newestHlcMillis, Hlc.unpack(rec.hlc()).physicalMillis());
      }
    }

    Map<String, List<Admission>> admissions = new LinkedHashMap<>();
    Map<String, List<AdmitItem>> items = new LinkedHashMap<>();
    List<String> keys = new ArrayList<>();
    for (Map.Entry<String, List<Candidate>> e : byRoom.entrySet()) {
      List<AdmitItem> roomItems = new ArrayList<>(e.getValue().size());
      for (Candidate c : e.getValue()) {
        keys.add(c.key());
        roomItems.add(new AdmitItem(c.key(), c.contentHash(), messageIds.next()));
      }
      items.put(e.getKey(), roomItems);
      admissions.put(e.getKey(), new ArrayList<>(sequencer.admit(e.getKey(), roomItems)));
    }
    Map<String, MessageRow> inSql = keys.isEmpty() ? Map.of() : store.messagesByKeys(keys);
    for (Map.Entry<String, List<Candidate>> e : byRoom.entrySet()) {
      reissueTakenOrphans(
          e.getKey(), e.getValue(), admissions.get(e.getKey()), items.get(e.getKey()), inSql);
    }

    List<MessageRow> messages = new ArrayList<>();
    Map<String, MessageRow> written = new HashMap<>();
    Map<String, List<MessageRow>> confirmedByRoom = new LinkedHashMap<>();
    for (Map.Entry<String, List<Candidate>> e : byRoom.entrySet()) {
      String room = e.getKey();
      List<Candidate> cands = e.getValue();
      List<Admission> adm = admissions.get(room);
      List<AdmitItem> its = items.get(room);
      for (int j = 0; j < cands.size(); j++) {
        Candidate c = cands.get(j);
        Admission a = adm.get(j);
        DanmakuRecord rec = c.record();
        String key = c.key();
        long index = oldSize + c.position();
        byte[] bytes = canonicals.get(c.position());
        boolean fresh = a.status() == Admission.Status.NEW || a.isReplayOf(its.get(j));
        MessageRow original = inSql.containsKey(key) ? inSql.get(key) : written.get(key);
        if (original != null) {
          if (fresh) {
            messages.add(MessageRow.tombstone(room, a.seq(), "duplicate-caught-by-sql"));
            counters.merge(Counters.DUPLICATES_SQL, 1L, Long::sum);
            counters.merge(Counters.TOMBSTONES, 1L, Long::sum);
          } else {
            counters.merge(Counters.DUPLICATES_REDIS, 1L, Long::sum);
          }
          boolean same = Objects.equals(original.contentHash(), c.contentHash());
          rows[c.position()] =
              new DeviceRecordRow(
                  deviceId,
                  index,
                  key,
                  bytes,
                  same ? Outcome.DUPLICATE.name() : Outcome.CONFLICT.name(),
                  original.room(),
                  original.seq(),
                  original.messageId(),
                  original.status().name(),
                  same ? null : "key-reused-with-different-content");
          continue;
        }
        if (a.status() == Admission.Status.CONFLICT) {
          rows[c.position()] =
              new DeviceRecordRow(
                  deviceId,
                  index,
                  key,
                  bytes,
                  Outcome.CONFLICT.name(),
                  room,
                  a.seq(),
                  a.messageId(),
                  null,
                  "key-reused-with-different-content");
          continue;
        }
        MessageRow row =
            new MessageRow(
                room,
                a.seq(),
                a.messageId(),
                key,
                c.contentHash(),
                deviceId,
                index,
                rec.user(),
                rec.text(),
                rec.playbackMs(),
                rec.mode(),
                rec.color(),
                rec.fontSize(),
                rec.hlc(),
                c.decision().status(),
                c.decision().reason(),
                0);
        messages.add(row);
        written.put(key, row);
        if (row.status() == MessageStatus.CONFIRMED) {
          confirmedByRoom.computeIfAbsent(room, r -> new ArrayList<>()).add(row);
        }
        Outcome o = Outcome.valueOf(row.status().name());
        rows[c.position()] =
            new DeviceRecordRow(
                deviceId,
                index,
                key,
                bytes,
                o.name(),
                room,
                a.seq(),
                a.messageId(),
                null,
                c.decision().reason());
      }
    }

    List<DeviceRecordRow> records = Arrays.asList(rows);
    List<RecordOutcome> outcomes = new ArrayList<>(n);
    for (DeviceRecordRow r : records) {
      outcomes.add(outcome(r));
      counters.merge(Counters.OUTCOME_PREFIX + r.outcome(), 1L, Long::sum);
      if (Outcome.REJECTED.name().equals(r.outcome())) {
        counters.merge(Counters.REJECT_PREFIX + r.reason(), 1L, Long::sum);
      }
      if (Outcome.CONFLICT.name().equals(r.outcome())) {
        counters.merge(Counters.CONFLICTS, 1L, Long::sum);
      }
    }
    counters.merge(Counters.BATCHES, 1L, Long::sum);
    counters.merge(Counters.RECORDS, (long) n, Long::sum);

    String receipt = cosign(note);
    long newSize = oldSize + n;
    EdgeCounters edge =
        metadata == null
            ? device.edge()
            : device
                .edge()
                .max(
                    new EdgeCounters(
                        metadata.bloomChecks(),
                        metadata.bloomMaybe(),
                        metadata.edgeDuplicates(),
                        metadata.bloomFalsePositives()));
    DeviceRow updated =
        new DeviceRow(
            deviceId,
            device.publicKey(),
            device.verifierKey(),
            device.status(),
            device.statusReason(),
            newSize,
            Math.max(device.claimedSize(), newSize),
            range.toBytes(),
            range.root(),
            note,
            receipt,
            now,
            now,
            now,
            newestHlcMillis < 0 ? device.clockSkewMs() : Long.valueOf(newestHlcMillis - now),
            device.signatureFailures(),
            edge,
            device.version() + 1,
            device.createdAt());
    store.commit(
        new BatchCommit(device.version(), oldSize, updated, records, nodes, messages, counters));

    for (Map.Entry<String, List<MessageRow>> e : confirmedByRoom.entrySet()) {
      rooms.publish(e.getKey(), e.getValue());
    }
    Map<String, Object> data = new LinkedHashMap<>();
    data.put("verifiedSize", newSize);
    data.put("records", n);
    data.put("rootHex", HEX.formatHex(updated.rootHash()));
    admin.publish(
        Events.of(
            "DEVICE",
            "INFO",
            deviceId,
            null,
            "verified " + deviceId + " up to " + newSize,
            now,
            data));
    return new IngestResult(response(updated, outcomes, receipt), false);
  }

  /**
   * An orphan is a key Redis remembers (DUPLICATE of its own earlier admission) whose batch never
   * committed: it is stored now at the number Redis remembers. If that number is meanwhile taken in
   * SQL (the room counter was lost and re-seeded, and the number sealed or reused), the record gets
   * a fresh number through a derived key, so the batch never collides with itself forever; SQL
   * stays the authority for later duplicates of the key.
   */
  private void reissueTakenOrphans(
      String room,
      List<Candidate> cands,
      List<Admission> adm,
      List<AdmitItem> its,
      Map<String, MessageRow> inSql) {
    Map<Integer, Long> orphanSeqs = new LinkedHashMap<>();
    Set<String> seen = new HashSet<>();
    for (int j = 0; j < cands.size(); j++) {
      Admission a = adm.get(j);
      String key = cands.get(j).key();
      boolean firstOccurrence = seen.add(key);
      boolean fresh = a.status() == Admission.Status.NEW || a.isReplayOf(its.get(j));
      if (firstOccurrence
          && !fresh
          && a.status() == Admission.Status.DUPLICATE
          && !inSql.containsKey(key)) {
        orphanSeqs.put(j, a.seq());
      }
    }
    if (orphanSeqs.isEmpty()) {
      return;
    }
    Set<Long> taken = store.takenSeqs(room, orphanSeqs.values());
    for (Map.Entry<Integer, Long> o : orphanSeqs.entrySet()) {
      long seq = o.getValue();
      int j = o.getKey();
      for (int round = 0; taken.contains(seq); round++) {
        if (round >= MAX_ATTEMPTS) {
          throw new IllegalStateException(
              "room " + room + ": no free number for orphaned key " + cands.get(j).key());
        }
        AdmitItem reissue =
            new AdmitItem(
                "reissue:" + seq + ":" + cands.get(j).key(),
                cands.get(j).contentHash(),
                messageIds.next());
        Admission b = sequencer.admit(room, List.of(reissue)).get(0);
        seq = b.seq();
        adm.set(j, new Admission(Admission.Status.NEW, b.seq(), b.messageId()));
        if (b.status() == Admission.Status.NEW || b.isReplayOf(reissue)) {
          break;
        }
        taken = store.takenSeqs(room, List.of(seq));
      }
    }
  }

  private static DeviceRecordRow rejected(
      String deviceId, long index, String key, byte[] bytes, String room, String reason) {
    return new DeviceRecordRow(
        deviceId, index, key, bytes, Outcome.REJECTED.name(), room, null, null, null, reason);
  }
}
