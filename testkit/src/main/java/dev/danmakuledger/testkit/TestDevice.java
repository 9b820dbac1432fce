package dev.danmakuledger.testkit;

import dev.danmakuledger.merkle.checkpoint.Checkpoint;
import dev.danmakuledger.merkle.checkpoint.NoteSigner;
import dev.danmakuledger.merkle.hash.Rfc6962;
import dev.danmakuledger.merkle.proof.Proofs;
import dev.danmakuledger.protocol.DeviceLog;
import dev.danmakuledger.protocol.DeviceReport;
import dev.danmakuledger.protocol.SigningLog;
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
 * A simulated edge device for tests: an Ed25519 note key named for its log origin, its device log
 * (RFC 6962 leaves, docs/architecture.md §3) and signed batches built with merkle and protocol
 * exactly as an agent builds them (C2SP checkpoints), without SQLite or a Bloom filter. It can also
 * answer what a server holding the log would: the root and checkpoint at any earlier size and
 * inclusion proofs (RFC 9162 §2.1.3).
 *
 * <p>{@link #id} and {@link #signer} are fields because every test reads them.
 */
public final class TestDevice {
  private static final SecureRandom RANDOM = new SecureRandom();

  public final String id;
  public final NoteSigner signer;
  private SigningLog log;
  private final List<byte[]> leaves = new ArrayList<>();
  private final List<byte[]> leafHashes = new ArrayList<>();
  private long nextIndex;
  private long hlcMillis = System.currentTimeMillis();

  private TestDevice(String id, NoteSigner signer) {
    this.id = id;
    this.signer = signer;
    this.log = SigningLog.of(id, signer);
  }

  /** A device with a fresh random key. */
  public static TestDevice create(String id) {
    return create(id, RANDOM);
  }

  /** A device whose key comes from {@code random} (seed it for a deterministic key). */
  public static TestDevice create(String id, SecureRandom random) {
    return new TestDevice(id, NoteSigner.generate(DeviceLog.origin(id), random));
  }

  /** A clone: same key and log so far (a copied data directory). */
  public TestDevice cloneDevice() {
    TestDevice c = new TestDevice(id, signer);
    c.log = log.copy();
    c.leaves.addAll(leaves);
    c.leafHashes.addAll(leafHashes);
    c.nextIndex = nextIndex;
    c.hlcMillis = hlcMillis;
    return c;
  }

  public EnrollRequest enrollRequest(String token) {
    return new EnrollRequest(id, Base64.getEncoder().encodeToString(signer.publicKey()), token);
  }

  /** Leaves in the log. */
  public long size() {
    return log.size();
  }

  /** The root of the whole log. */
  public byte[] root() {
    return log.root();
  }

  /** The root of the first {@code n} leaves. */
  public byte[] rootAt(long n) {
    checkSize(n);
    return subtreeRoot(0, n);
  }

  /** The RFC 6962 leaf hash at {@code index}. */
  public byte[] leafHash(long index) {
    if (index < 0 || index >= size()) {
      throw new IllegalArgumentException("index: got " + index + ", want 0.." + (size() - 1));
    }
    return leafHashes.get((int) index);
  }

  /** The inclusion proof of leaf {@code index} in the whole log. */
  public List<byte[]> inclusionProof(long index) {
    return Proofs.inclusion(
        index,
        size(),
        node ->
            subtreeRoot(
                node.index() << node.level(),
                Math.min(size(), (node.index() + 1) << node.level())));
  }

  /** A new record with the next index of this device's log (append it with {@link #batch}). */
  public DanmakuRecord record(String room, String user, String text) {
    IdempotencyKey key = IdempotencyKey.generate(id, user, Clock.systemUTC(), RANDOM);
    return new DanmakuRecord(
        key, id, room, user, text, 1_000L, 1, 0xFFFFFF, 25, nextHlc(), nextIndex++);
  }

  /** The same message (same key and content) captured again at the next index. */
  public DanmakuRecord again(DanmakuRecord r) {
    return r.withIndexAndHlc(nextIndex++, nextHlc());
  }

  /** A record with {@code r}'s key but other text, at the next index. */
  public DanmakuRecord conflicting(DanmakuRecord r, String text) {
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
  public DanmakuRecord inRoom(DanmakuRecord r, String room) {
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
  public BatchRequest batch(DanmakuRecord... records) {
    List<byte[]> bytes = new ArrayList<>();
    for (DanmakuRecord r : records) {
      bytes.add(r.canonicalBytes());
    }
    return batchOfBytes(bytes);
  }

  /** Appends raw leaf bytes (possibly not a valid record) and returns the signed batch. */
  public BatchRequest batchOfBytes(List<byte[]> canonicals) {
    BatchRequest batch = log.append(canonicals, leafHashes::add, new BatchMetadata(10, 2, 1, 1));
    leaves.addAll(canonicals);
    nextIndex = Math.max(nextIndex, log.size());
    return batch;
  }

  /** The signed checkpoint of the whole log so far. */
  public String checkpoint() {
    return log.checkpoint();
  }

  /** The signed checkpoint of the first {@code n} leaves. */
  public String checkpointAt(long n) {
    return log.checkpoint(n, rootAt(n));
  }

  /**
   * {@code b} (a batch of this device) carrying {@code m} numbered {@code reportSeq} and signed by
   * the device key for that batch, as current agents report (docs/sync.md, "Signed reports").
   */
  public BatchRequest reporting(BatchRequest b, BatchMetadata m, long reportSeq) {
    long size = b.oldSize() + b.records().size();
    Checkpoint head = new Checkpoint(DeviceLog.origin(id), size, rootAt(size));
    return new BatchRequest(
        b.oldSize(),
        b.records(),
        b.checkpoint(),
        DeviceReport.sign(signer, id, b.oldSize(), head, m, reportSeq));
  }

  /** A batch re-sending leaves [from, to) with a checkpoint for size {@code to}. */
  public BatchRequest resend(long from, long to) {
    checkSize(to);
    if (from < 0 || from > to) {
      throw new IllegalArgumentException("from: got " + from + ", want 0.." + to);
    }
    List<WireRecord> wire = new ArrayList<>();
    for (long i = from; i < to; i++) {
      wire.add(new WireRecord(i, Base64.getEncoder().encodeToString(leaves.get((int) i))));
    }
    return new BatchRequest(from, wire, checkpointAt(to), null);
  }

  private void checkSize(long n) {
    if (n < 0 || n > size()) {
      throw new IllegalArgumentException("size: got " + n + ", want 0.." + size());
    }
  }

  /** RFC 6962 §2.1 MTH of leaves [begin, end). */
  private byte[] subtreeRoot(long begin, long end) {
    long n = end - begin;
    if (n == 0) {
      return Rfc6962.emptyRoot();
    }
    if (n == 1) {
      return leafHashes.get((int) begin);
    }
    long k = Long.highestOneBit(n - 1);
    return Rfc6962.nodeHash(subtreeRoot(begin, begin + k), subtreeRoot(begin + k, end));
  }
}
