package dev.danmakuledger.bench.ingest;

import dev.danmakuledger.merkle.checkpoint.Checkpoint;
import dev.danmakuledger.merkle.checkpoint.Checkpoints;
import dev.danmakuledger.merkle.checkpoint.NoteSigner;
import dev.danmakuledger.merkle.compact.CompactRange;
import dev.danmakuledger.protocol.DeviceLog;
import dev.danmakuledger.protocol.record.CanonicalRecord;
import dev.danmakuledger.protocol.record.DanmakuRecord;
import dev.danmakuledger.protocol.wire.BatchRequest;
import dev.danmakuledger.protocol.wire.WireRecord;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.function.Consumer;

/**
 * A device log held in memory, for load generation: it appends records, keeps the RFC 6962 compact
 * range (docs/architecture.md §3) and signs a C2SP checkpoint for each batch, exactly as an edge
 * agent would, but without SQLite or a Bloom filter, so the benchmark measures the server.
 */
public final class SimulatedDevice {
  private final String deviceId;
  private final NoteSigner signer;
  private final CompactRange range = CompactRange.empty();

  private SimulatedDevice(String deviceId, NoteSigner signer) {
    this.deviceId = deviceId;
    this.signer = signer;
  }

  /** A device with a fresh Ed25519 key named for its log origin. */
  public static SimulatedDevice create(String deviceId, SecureRandom random) {
    return new SimulatedDevice(deviceId, NoteSigner.generate(DeviceLog.origin(deviceId), random));
  }

  public String deviceId() {
    return deviceId;
  }

  public NoteSigner signer() {
    return signer;
  }

  /** The enrolment form of the public key: base64 of the 32 raw bytes. */
  public String publicKeyBase64() {
    return Base64.getEncoder().encodeToString(signer.publicKey());
  }

  /** Records appended so far. */
  public long size() {
    return range.end();
  }

  /** The current root. */
  public byte[] root() {
    return range.root();
  }

  /**
   * Appends {@code drafts} (their index and clock are replaced by the next log positions) and
   * returns the batch that carries them with a checkpoint signed for the new size.
   */
  public BatchRequest append(List<DanmakuRecord> drafts) {
    return append(drafts, leaf -> {});
  }

  /** As {@link #append(List)}, handing each new leaf hash to {@code leafSink} in log order. */
  public BatchRequest append(List<DanmakuRecord> drafts, Consumer<byte[]> leafSink) {
    long oldSize = range.end();
    List<WireRecord> wire = new ArrayList<>(drafts.size());
    Base64.Encoder b64 = Base64.getEncoder();
    for (DanmakuRecord draft : drafts) {
      long index = range.end();
      DanmakuRecord r = draft.withIndexAndHlc(index, draft.hlc());
      byte[] bytes = CanonicalRecord.encode(r);
      byte[] leaf = r.leafHash();
      range.append(leaf);
      leafSink.accept(leaf);
      wire.add(new WireRecord(index, b64.encodeToString(bytes)));
    }
    return new BatchRequest(oldSize, wire, checkpoint(), null);
  }

  /** A checkpoint note for the current size, signed by this device. */
  public String checkpoint() {
    return Checkpoints.sign(
        new Checkpoint(DeviceLog.origin(deviceId), range.end(), range.root()), signer);
  }
}
