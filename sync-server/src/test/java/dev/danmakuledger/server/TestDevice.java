package dev.danmakuledger.server;

import dev.danmakuledger.merkle.checkpoint.Checkpoint;
import dev.danmakuledger.merkle.checkpoint.Checkpoints;
import dev.danmakuledger.merkle.checkpoint.NoteSigner;
import dev.danmakuledger.merkle.compact.CompactRange;
import dev.danmakuledger.merkle.hash.Rfc6962;
import dev.danmakuledger.protocol.DeviceLog;
import dev.danmakuledger.protocol.clock.Hlc;
import dev.danmakuledger.protocol.key.IdempotencyKey;
import dev.danmakuledger.protocol.record.DanmakuRecord;
import dev.danmakuledger.protocol.wire.BatchMetadata;
import dev.danmakuledger.protocol.wire.BatchRequest;
import dev.danmakuledger.protocol.wire.EnrollRequest;
import dev.danmakuledger.protocol.wire.WireRecord;
import java.security.SecureRandom;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

/**
 * A simulated edge device for tests: an Ed25519 note key, a device log kept as a compact range, and
 * signed batches built with merkle and protocol exactly as an agent builds them.
 */
final class TestDevice {
  private static final SecureRandom RANDOM = new SecureRandom();

  final String id;
  final NoteSigner signer;
  private CompactRange range = CompactRange.empty();
  private final List<byte[]> leaves = new ArrayList<>();
  private long nextIndex;
  private long hlcMillis = System.currentTimeMillis();

  private TestDevice(String id, NoteSigner signer) {
    this.id = id;
    this.signer = signer;
  }

  static TestDevice create(String id) {
    return new TestDevice(id, NoteSigner.generate(DeviceLog.origin(id), RANDOM));
  }

  /** A clone: same key and log so far (a copied data directory). */
  TestDevice cloneDevice() {
    TestDevice c = new TestDevice(id, signer);
    c.range = range.copy();
    c.leaves.addAll(leaves);
    c.nextIndex = nextIndex;
    c.hlcMillis = hlcMillis;
    return c;
  }

  EnrollRequest enrollRequest(String token) {
    return new EnrollRequest(id, Base64.getEncoder().encodeToString(signer.publicKey()), token);
  }

  long size() {
    return range.end();
  }

  byte[] root() {
    return range.root();
  }

  /** A new record with the next index of this device's log (append it with {@link #batch}). */
  DanmakuRecord record(String room, String user, String text) {
    IdempotencyKey key = IdempotencyKey.generate(id, user, Clock.systemUTC(), RANDOM);
    return new DanmakuRecord(
        key, id, room, user, text, 1_000L, 1, 0xFFFFFF, 25, nextHlc(), nextIndex++);
  }

  /** The same message (same key and content) captured again at the next index. */
  DanmakuRecord again(DanmakuRecord r) {
    return r.withIndexAndHlc(nextIndex++, nextHlc());
  }

  /** A record with {@code r}'s key but other text, at the next index. */
  DanmakuRecord conflicting(DanmakuRecord r, String text) {
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
        nextHlc(),
        nextIndex++);
  }

  /** A record with {@code r}'s key and text but posted to another room, at the next index. */
  DanmakuRecord inRoom(DanmakuRecord r, String room) {
    return new DanmakuRecord(
        r.key(),
        r.deviceId(),
        room,
        r.user(),
        r.text(),
        r.playbackMs(),
        r.mode(),
        r.color(),
        r.fontSize(),
        nextHlc(),
        nextIndex++);
  }

  private long nextHlc() {
    return new Hlc(++hlcMillis, 0).pack();
  }

  /** Appends the records (in index order) to the log and returns the signed batch. */
  BatchRequest batch(DanmakuRecord... records) {
    List<byte[]> bytes = new ArrayList<>();
    for (DanmakuRecord r : records) {
      bytes.add(r.canonicalBytes());
    }
    return batchOfBytes(bytes);
  }

  /** Appends raw leaf bytes (possibly not a valid record) and returns the signed batch. */
  BatchRequest batchOfBytes(List<byte[]> canonicals) {
    long oldSize = range.end();
    List<WireRecord> wire = new ArrayList<>();
    for (byte[] b : canonicals) {
      wire.add(new WireRecord(range.end(), Base64.getEncoder().encodeToString(b)));
      range.append(Rfc6962.leafHash(b));
      leaves.add(b);
    }
    nextIndex = Math.max(nextIndex, range.end());
    return new BatchRequest(oldSize, wire, checkpoint(), new BatchMetadata(10, 2, 1, 1));
  }

  /** The signed checkpoint of the whole log so far. */
  String checkpoint() {
    return Checkpoints.sign(
        new Checkpoint(DeviceLog.origin(id), range.end(), range.root()), signer);
  }

  /** A batch re-sending leaves [from, to) with a checkpoint for size {@code to}. */
  BatchRequest resend(long from, long to) {
    CompactRange r = CompactRange.empty();
    List<WireRecord> wire = new ArrayList<>();
    for (int i = 0; i < to; i++) {
      r.append(Rfc6962.leafHash(leaves.get(i)));
      if (i >= from) {
        wire.add(new WireRecord(i, Base64.getEncoder().encodeToString(leaves.get(i))));
      }
    }
    String cp = Checkpoints.sign(new Checkpoint(DeviceLog.origin(id), to, r.root()), signer);
    return new BatchRequest(from, wire, cp, null);
  }
}
