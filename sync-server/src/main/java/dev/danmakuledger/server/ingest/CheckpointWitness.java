package dev.danmakuledger.server.ingest;

import dev.danmakuledger.merkle.checkpoint.Checkpoint;
import dev.danmakuledger.merkle.checkpoint.Checkpoints;
import dev.danmakuledger.merkle.checkpoint.CosignatureSigner;
import dev.danmakuledger.merkle.checkpoint.NoteSigner;
import dev.danmakuledger.merkle.checkpoint.NoteVerificationException;
import dev.danmakuledger.merkle.checkpoint.SignedNote;
import dev.danmakuledger.merkle.compact.CompactRange;
import dev.danmakuledger.merkle.hash.Rfc6962;
import dev.danmakuledger.protocol.DeviceLog;
import dev.danmakuledger.protocol.error.ErrorCode;
import dev.danmakuledger.protocol.wire.RecordOutcome;
import dev.danmakuledger.protocol.wire.admin.AdminEvent.Severity;
import dev.danmakuledger.server.LedgerException;
import dev.danmakuledger.server.events.AdminHub;
import dev.danmakuledger.server.events.AlertKind;
import dev.danmakuledger.server.events.Events;
import dev.danmakuledger.server.query.DeviceTrees;
import dev.danmakuledger.server.storage.AlertRow;
import dev.danmakuledger.server.storage.Counter;
import dev.danmakuledger.server.storage.DeviceRecordRow;
import dev.danmakuledger.server.storage.DeviceRow;
import dev.danmakuledger.server.storage.DeviceStatus;
import dev.danmakuledger.server.storage.LedgerStore;
import dev.danmakuledger.server.storage.NodeBlock;
import dev.danmakuledger.server.storage.NodeRow;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

/**
 * The server as witness of a device log (docs/architecture.md §4, after the C2SP witness protocol):
 * the device must be enrolled and not quarantined, the checkpoint signed by its key for its origin,
 * {@code oldSize} the verified size; a resend of verified records is answered from the stored
 * outcomes, a rewrite of them is a fork (device quarantined); the appended leaf hashes must give
 * the checkpoint root. Nothing here touches Redis.
 */
final class CheckpointWitness {
  private static final HexFormat HEX = HexFormat.of();

  /**
   * A batch whose records extend the verified log, with the compact range after them.
   *
   * @param leafHashes the RFC 6962 leaf hash of each record of the batch, in log order
   */
  record Extension(
      CompactRange range, List<NodeRow> nodes, List<byte[]> leafHashes, String receipt) {}

  private final LedgerStore store;
  private final DeviceTrees trees;
  private final DeviceVerifiers verifiers = new DeviceVerifiers();
  private final NoteSigner serverSigner;
  private final CosignatureSigner cosigner;
  private final String cosignerKeyId;
  private final AdminHub admin;
  private final Clock clock;

  CheckpointWitness(
      LedgerStore store,
      NoteSigner serverSigner,
      CosignatureSigner cosigner,
      AdminHub admin,
      Clock clock) {
    this.store = store;
    this.trees = new DeviceTrees(store);
    this.serverSigner = serverSigner;
    this.cosigner = cosigner;
    this.cosignerKeyId = cosigner.verifier().keyId();
    this.admin = admin;
    this.clock = clock;
  }

  /** The enrolled, not quarantined device (401, 403). */
  DeviceRow device(String deviceId) {
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
    return device;
  }

  /**
   * The checkpoint, verified under the device's key, of size {@code newSize}, small enough for the
   * device row to hold it and its receipt (400 otherwise, before anything is admitted).
   */
  Checkpoint open(DeviceRow device, String note, long newSize) {
    if (note.length() > DeviceRow.MAX_CHECKPOINT_CHARS) {
      throw new LedgerException(
          ErrorCode.INVALID_FIELD,
          "checkpoint: got "
              + note.length()
              + " characters, want at most "
              + DeviceRow.MAX_CHECKPOINT_CHARS
              + "; sign the checkpoint with the device key only");
    }
    String origin = DeviceLog.origin(device.id());
    Checkpoint cp;
    try {
      cp = Checkpoints.open(note, origin, verifiers.of(origin, device.publicKey()));
    } catch (NoteVerificationException e) {
      throw refused(device, origin, e);
    }
    if (cp.size() != newSize) {
      throw new LedgerException(
          ErrorCode.INVALID_FIELD,
          "checkpoint: got size " + cp.size() + ", want oldSize + records = " + newSize);
    }
    return cp;
  }

  private LedgerException refused(DeviceRow device, String origin, NoteVerificationException e) {
    if (e.reason() == NoteVerificationException.Reason.MALFORMED) {
      return new LedgerException(
          ErrorCode.INVALID_FIELD, "checkpoint: not a signed checkpoint note: " + e.getMessage());
    }
    // Unauthenticated: counted, never trusted, by the HTTP layer's SignatureFailures.
    return new LedgerException(
        ErrorCode.BAD_SIGNATURE,
        "checkpoint is not signed by the key enrolled for "
            + device.id()
            + " for origin "
            + origin
            + " ("
            + e.reason()
            + ")");
  }

  /**
   * The receipt signatures a batch gets whose {@link ReceiptSignatures#HEADER} is {@code header}.
   */
  ReceiptSignatures signaturesFor(String header) {
    return ReceiptSignatures.requestedBy(header, cosignerKeyId);
  }

  /**
   * The server's receipt (§10; docs/sync.md, "Receipts"): the device's note with the server's C2SP
   * tlog-cosignature {@code cosignature/v1} line, timestamped now, and, unless {@code signatures}
   * is the cosignature alone, the Ed25519 note signature of the first server key, which agents
   * enrolled before cosigned receipts check.
   */
  String cosign(String note, ReceiptSignatures signatures) {
    String signed =
        signatures == ReceiptSignatures.COSIGNATURE_AND_NOTE
            ? SignedNote.addSignature(note, serverSigner)
            : note;
    String receipt = cosigner.cosign(signed, clock);
    if (receipt.length() > DeviceRow.MAX_RECEIPT_CHARS) {
      throw new LedgerException(
          ErrorCode.INVALID_FIELD,
          "checkpoint: its receipt would have "
              + receipt.length()
              + " characters, want at most "
              + DeviceRow.MAX_RECEIPT_CHARS);
    }
    return receipt;
  }

  LedgerException sizeMismatch(DeviceRow device) {
    return new LedgerException(
        ErrorCode.SIZE_MISMATCH,
        "batch must start at the verified size "
            + device.verifiedSize()
            + "; fetch the acks and resend from there",
        Map.of("verifiedSize", device.verifiedSize()));
  }

  /**
   * A batch starting below the verified size: a lost-reply resend, answered with the stored
   * outcomes, or a fork.
   */
  List<RecordOutcome> resend(
      DeviceRow device, long oldSize, List<byte[]> canonicals, Checkpoint cp, long now) {
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
      outcomes.add(r.wire());
    }
    store.addCounters(Map.of(Counter.REPLAYS.key(), 1L));
    return outcomes;
  }

  /** An empty batch at the verified size must repeat the verified root. */
  void checkSameRoot(DeviceRow device, Checkpoint cp) {
    if (!Arrays.equals(cp.root(), device.rootHash())) {
      throw fork(device, "checkpoint for verified size " + cp.size() + " has a different root");
    }
  }

  /**
   * Appends the batch's leaves to the verified compact range; the root must be the checkpoint's.
   */
  Extension extend(
      DeviceRow device, long oldSize, List<byte[]> canonicals, Checkpoint cp, String receipt) {
    long newSize = oldSize + canonicals.size();
    CompactRange range = CompactRange.fromBytes(device.compactRange());
    List<NodeRow> nodes = new ArrayList<>();
    List<byte[]> leaves = new ArrayList<>(canonicals.size());
    for (byte[] bytes : canonicals) {
      byte[] leaf = Rfc6962.leafHash(bytes);
      leaves.add(leaf);
      range.append(
          leaf,
          (id, hash) -> {
            if (id.level() >= NodeBlock.LOWEST_STORED_LEVEL) {
              nodes.add(new NodeRow(id.level(), id.index(), hash));
            }
          });
    }
    byte[] root = range.root();
    if (Arrays.equals(root, cp.root())) {
      return new Extension(range, nodes, leaves, receipt);
    }
    store.addCounters(Map.of(Counter.BAD_PROOFS.key(), 1L));
    AlertRow alert =
        store.insertAlert(
            Events.alert(
                AlertKind.BAD_PROOF,
                Severity.WARN,
                device.id(),
                "records ["
                    + oldSize
                    + ", "
                    + newSize
                    + ") of device "
                    + device.id()
                    + " do not give the root of its signed checkpoint; nothing was stored",
                Map.of("oldSize", oldSize, "newSize", newSize),
                clock.millis()));
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

  /** Quarantines the device for a fork and returns the 409 to throw. */
  LedgerException fork(DeviceRow device, String why) {
    String message = "fork detected on device " + device.id() + ": " + why + "; device quarantined";
    AlertRow alert =
        store.quarantine(
            device.id(),
            "FORK: " + why,
            Map.of(Counter.FORKS.key(), 1L),
            Events.alert(
                AlertKind.FORK, Severity.CRITICAL, device.id(), message, Map.of(), clock.millis()));
    admin.publish(Events.of(alert));
    return new LedgerException(ErrorCode.FORK_DETECTED, message);
  }
}
