package dev.danmakuledger.bench.ingest;

import dev.danmakuledger.merkle.checkpoint.NoteSigner;
import dev.danmakuledger.protocol.SigningLog;
import dev.danmakuledger.protocol.record.CanonicalRecord;
import dev.danmakuledger.protocol.record.DanmakuRecord;
import dev.danmakuledger.protocol.wire.BatchRequest;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * A device log held in memory, for load generation: it appends records, keeps the RFC 6962 compact
 * range (docs/architecture.md §3) and signs a C2SP checkpoint for each batch, exactly as an edge
 * agent would, but without SQLite or a Bloom filter, so the benchmark measures the server.
 */
public final class SimulatedDevice {
  private final SigningLog log;

  private SimulatedDevice(SigningLog log) {
    this.log = log;
  }

  /** A device with a fresh Ed25519 key named for its log origin. */
  public static SimulatedDevice create(String deviceId, SecureRandom random) {
    return new SimulatedDevice(SigningLog.create(deviceId, random));
  }

  public String deviceId() {
    return log.deviceId();
  }

  public NoteSigner signer() {
    return log.signer();
  }

  /** The enrolment form of the public key: base64 of the 32 raw bytes. */
  public String publicKeyBase64() {
    return log.publicKeyBase64();
  }

  /** Records appended so far. */
  public long size() {
    return log.size();
  }

  /** The current root. */
  public byte[] root() {
    return log.root();
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
    List<byte[]> bytes = new ArrayList<>(drafts.size());
    long index = log.size();
    for (DanmakuRecord draft : drafts) {
      bytes.add(CanonicalRecord.encode(draft.withIndexAndHlc(index++, draft.hlc())));
    }
    return log.append(bytes, leafSink, null);
  }

  /** A checkpoint note for the current size, signed by this device. */
  public String checkpoint() {
    return log.checkpoint();
  }
}
