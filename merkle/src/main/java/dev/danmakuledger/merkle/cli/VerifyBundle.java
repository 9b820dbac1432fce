package dev.danmakuledger.merkle.cli;

import dev.danmakuledger.merkle.VerificationException;
import dev.danmakuledger.merkle.checkpoint.Checkpoint;
import dev.danmakuledger.merkle.checkpoint.Checkpoints;
import dev.danmakuledger.merkle.checkpoint.Cosignatures;
import dev.danmakuledger.merkle.checkpoint.NoteVerifier;
import dev.danmakuledger.merkle.hash.Rfc6962;
import dev.danmakuledger.merkle.proof.InclusionProof;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;

/**
 * {@code tlog verify-bundle}: checks one message's audit bundle (docs/room-log.md, "Audit bundle")
 * offline, from the room checkpoint down to the device's own signature, printing one line per fact
 * proved and stopping at the first that does not hold. It proves that the server numbered exactly
 * this device record at this seq in a room log it signed, and that the record is in the device's
 * signed log, which the server witnessed (its cosignature/v1 receipt).
 */
final class VerifyBundle {
  /** Largest bundle file read: two notes and two proofs fit many times over. */
  static final long MAX_BUNDLE_BYTES = 1 << 20;

  static final String ROOM_ORIGIN_PREFIX = VerifyRoom.ROOM_ORIGIN_PREFIX;
  static final String DEVICE_ORIGIN_PREFIX = "danmaku-ledger/device/";

  private static final HexFormat HEX = HexFormat.of();

  private final VerifyRoom.TextFiles files;
  private final PrintStream out;

  VerifyBundle(VerifyRoom.TextFiles files, PrintStream out) {
    this.files = files;
    this.out = out;
  }

  void run(List<String> rest) throws UsageException, VerificationException {
    Args a = Args.parse(rest, Set.of("server-keys", "device-vkey"), Set.of(), List.of("BUNDLE"));
    ServerKeys keys;
    try {
      keys = ServerKeys.parse(files.read(a.option("server-keys")));
    } catch (IllegalArgumentException e) {
      throw new UsageException("--server-keys: " + e.getMessage(), e);
    }
    NoteVerifier device;
    try {
      device = NoteVerifier.parse(a.option("device-vkey"));
    } catch (IllegalArgumentException e) {
      throw new UsageException("--device-vkey: " + e.getMessage(), e);
    }
    AuditBundle b = read(a.operand(0));
    Checkpoint room = roomCheckpoint(b, keys);
    RoomMessageEntry entry = entry(b);
    roomInclusion(b, room);
    DeviceRecordFields record = record(b, entry);
    Checkpoint dcp = deviceCheckpoint(b, device);
    deviceInclusion(b, record, dcp);
    cosigned(b, keys, dcp);
  }

  private AuditBundle read(String file) throws UsageException {
    try {
      long size = Files.size(Path.of(file));
      if (size > MAX_BUNDLE_BYTES) {
        throw new UsageException(
            file + ": got " + size + " bytes, want at most " + MAX_BUNDLE_BYTES + " for a bundle");
      }
    } catch (IOException e) {
      throw new UsageException(file + ": cannot read: " + e.getMessage(), e);
    }
    try {
      return AuditBundle.parse(files.read(file));
    } catch (IllegalArgumentException e) {
      throw new UsageException(file + ": " + e.getMessage(), e);
    }
  }

  private Checkpoint roomCheckpoint(AuditBundle b, ServerKeys keys) throws CheckFailed {
    String origin = ROOM_ORIGIN_PREFIX + b.room();
    Checkpoint cp = open("room checkpoint", b.roomCheckpoint(), origin, keys.log());
    ok("room checkpoint signed by " + keys.log().name() + " for " + origin + ", size " + cp.size());
    return cp;
  }

  private RoomMessageEntry entry(AuditBundle b) throws CheckFailed {
    RoomMessageEntry e;
    try {
      e = RoomMessageEntry.parse(b.entry());
    } catch (IllegalArgumentException x) {
      throw new CheckFailed("room entry", x.getMessage());
    }
    if (e.seq() != b.seq()) {
      throw new CheckFailed("room entry", "got seq " + e.seq() + ", want the bundle's " + b.seq());
    }
    ok(
        "room entry is v1 message "
            + e.messageId()
            + " at seq "
            + e.seq()
            + ", device "
            + e.deviceId()
            + " index "
            + e.deviceIndex());
    return e;
  }

  private void roomInclusion(AuditBundle b, Checkpoint room) throws CheckFailed {
    AuditBundle.Inclusion p = b.roomInclusion();
    if (p.index() != b.seq() - 1) {
      throw new CheckFailed(
          "room inclusion", "got index " + p.index() + ", want seq - 1 = " + (b.seq() - 1));
    }
    if (p.size() != room.size()) {
      throw new CheckFailed(
          "room inclusion",
          "proof is for size " + p.size() + ", the checkpoint has size " + room.size());
    }
    verifyInclusion("room inclusion", p, Rfc6962.leafHash(b.entry()), room.root());
    ok("room entry included at index " + p.index() + " of the room log of size " + p.size());
  }

  private DeviceRecordFields record(AuditBundle b, RoomMessageEntry e) throws CheckFailed {
    String leaf = HEX.formatHex(Rfc6962.leafHash(b.record()));
    if (!leaf.equals(e.deviceLeafHashHex())) {
      throw new CheckFailed(
          "device leaf hash",
          "the record hashes to " + leaf + ", the entry says " + e.deviceLeafHashHex());
    }
    ok("record's RFC 6962 leaf hash " + leaf + " is the entry's deviceLeafHashHex");
    DeviceRecordFields r;
    try {
      r = DeviceRecordFields.decode(b.record());
    } catch (IllegalArgumentException x) {
      throw new CheckFailed("record", x.getMessage());
    }
    if (!r.deviceId().equals(e.deviceId()) || !r.deviceId().equals(b.deviceId())) {
      throw new CheckFailed(
          "record",
          "of device \""
              + r.deviceId()
              + "\", the entry names \""
              + e.deviceId()
              + "\" and the bundle \""
              + b.deviceId()
              + "\"");
    }
    if (r.index() != e.deviceIndex()) {
      throw new CheckFailed(
          "record", "has index " + r.index() + ", the entry says " + e.deviceIndex());
    }
    if (!r.idempotencyKey().equals(e.idempotencyKey())) {
      throw new CheckFailed(
          "record", "has key " + r.idempotencyKey() + ", the entry says " + e.idempotencyKey());
    }
    ok(
        "record is device "
            + r.deviceId()
            + " index "
            + r.index()
            + ", key "
            + r.idempotencyKey()
            + ", as the entry says");
    return r;
  }

  private Checkpoint deviceCheckpoint(AuditBundle b, NoteVerifier device) throws CheckFailed {
    String origin = DEVICE_ORIGIN_PREFIX + b.deviceId();
    Checkpoint cp = open("device checkpoint", b.deviceCheckpoint(), origin, device);
    ok("device checkpoint signed by " + device.name() + " for " + origin + ", size " + cp.size());
    return cp;
  }

  private void deviceInclusion(AuditBundle b, DeviceRecordFields r, Checkpoint dcp)
      throws CheckFailed {
    AuditBundle.Inclusion p = b.deviceInclusion();
    if (p.index() != r.index()) {
      throw new CheckFailed(
          "device inclusion", "got index " + p.index() + ", the record's is " + r.index());
    }
    if (p.size() != dcp.size()) {
      throw new CheckFailed(
          "device inclusion",
          "proof is for size " + p.size() + ", the checkpoint has size " + dcp.size());
    }
    verifyInclusion("device inclusion", p, Rfc6962.leafHash(b.record()), dcp.root());
    ok("record included at index " + p.index() + " of the device log of size " + p.size());
  }

  private void cosigned(AuditBundle b, ServerKeys keys, Checkpoint dcp) throws CheckFailed {
    long t;
    try {
      t = Cosignatures.open(b.deviceCheckpoint(), dcp.origin(), keys.cosigner()).timestamp();
    } catch (VerificationException e) {
      throw new CheckFailed("device checkpoint cosignature", e.getMessage());
    }
    ok(
        "device checkpoint cosigned (cosignature/v1) by "
            + keys.cosigner().name()
            + " at "
            + Instant.ofEpochSecond(t));
  }

  private static Checkpoint open(String what, String note, String origin, NoteVerifier key)
      throws CheckFailed {
    try {
      return Checkpoints.open(note, origin, key);
    } catch (VerificationException e) {
      throw new CheckFailed(what, e.getMessage());
    }
  }

  private static void verifyInclusion(
      String what, AuditBundle.Inclusion p, byte[] leafHash, byte[] root) throws CheckFailed {
    try {
      InclusionProof.verify(p.index(), p.size(), leafHash, p.proof(), root);
    } catch (VerificationException | IllegalArgumentException e) {
      throw new CheckFailed(what, e.getMessage());
    }
  }

  private void ok(String fact) {
    out.println("ok  " + fact);
  }
}
