package dev.danmakuledger.protocol;

import dev.danmakuledger.merkle.checkpoint.Checkpoint;
import dev.danmakuledger.merkle.checkpoint.Checkpoints;
import dev.danmakuledger.merkle.checkpoint.NoteSigner;
import dev.danmakuledger.merkle.compact.CompactRange;
import dev.danmakuledger.merkle.hash.Rfc6962;
import dev.danmakuledger.protocol.wire.BatchMetadata;
import dev.danmakuledger.protocol.wire.BatchRequest;
import dev.danmakuledger.protocol.wire.WireRecord;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * A device log held in memory (docs/architecture.md §3): the device's Ed25519 key and the RFC 6962
 * compact range of its log, appending records and signing C2SP checkpoints exactly as an edge agent
 * does, with no store behind it. What simulated devices are built on: the demo's device without
 * edge dedupe, the benchmarks' load generators and the tests' signing device. Not thread-safe.
 */
public final class SigningLog {
  private final String deviceId;
  private final NoteSigner signer;
  private final CompactRange range;

  private SigningLog(String deviceId, NoteSigner signer, CompactRange range) {
    this.deviceId = deviceId;
    this.signer = signer;
    this.range = range;
  }

  /** An empty log of {@code deviceId} under a fresh key from {@code random}. */
  public static SigningLog create(String deviceId, SecureRandom random) {
    return of(deviceId, NoteSigner.generate(DeviceLog.origin(deviceId), random));
  }

  /** An empty log of {@code deviceId} signed by {@code signer}. */
  public static SigningLog of(String deviceId, NoteSigner signer) {
    DeviceLog.origin(deviceId);
    return new SigningLog(deviceId, Objects.requireNonNull(signer, "signer"), CompactRange.empty());
  }

  /** An independent copy: same key, same log so far (a copied data directory, or a draft). */
  public SigningLog copy() {
    return new SigningLog(deviceId, signer, range.copy());
  }

  public String deviceId() {
    return deviceId;
  }

  public NoteSigner signer() {
    return signer;
  }

  /** The enrolment form of the public key: base64 of its 32 raw bytes. */
  public String publicKeyBase64() {
    return Base64.getEncoder().encodeToString(signer.publicKey());
  }

  /** Records appended so far. */
  public long size() {
    return range.end();
  }

  /** The RFC 6962 root of the whole log. */
  public byte[] root() {
    return range.root();
  }

  /**
   * Appends records' bytes (possibly not a valid record) at the next indices and returns the batch
   * that carries them, with a checkpoint signed for the new size.
   *
   * @param leafSink gets each new leaf hash, in log order
   * @param metadata the batch's edge counters, or null
   */
  public BatchRequest append(
      List<byte[]> canonicals, Consumer<byte[]> leafSink, BatchMetadata metadata) {
    long oldSize = range.end();
    List<WireRecord> wire = new ArrayList<>(canonicals.size());
    Base64.Encoder b64 = Base64.getEncoder();
    for (byte[] bytes : canonicals) {
      wire.add(new WireRecord(range.end(), b64.encodeToString(bytes)));
      byte[] leaf = Rfc6962.leafHash(bytes);
      range.append(leaf);
      leafSink.accept(leaf);
    }
    return new BatchRequest(oldSize, wire, checkpoint(), metadata);
  }

  /** The signed checkpoint of the whole log so far. */
  public String checkpoint() {
    return checkpoint(range.end(), range.root());
  }

  /** A checkpoint of the first {@code size} leaves, whose root the caller computed. */
  public String checkpoint(long size, byte[] root) {
    return Checkpoints.sign(new Checkpoint(DeviceLog.origin(deviceId), size, root), signer);
  }
}
