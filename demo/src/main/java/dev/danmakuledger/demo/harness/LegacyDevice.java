package dev.danmakuledger.demo.harness;

import dev.danmakuledger.edge.sync.SyncClient;
import dev.danmakuledger.merkle.checkpoint.Checkpoint;
import dev.danmakuledger.merkle.checkpoint.Checkpoints;
import dev.danmakuledger.merkle.checkpoint.NoteSigner;
import dev.danmakuledger.merkle.compact.CompactRange;
import dev.danmakuledger.protocol.DeviceLog;
import dev.danmakuledger.protocol.record.DanmakuRecord;
import dev.danmakuledger.protocol.wire.BatchRequest;
import dev.danmakuledger.protocol.wire.BatchResponse;
import dev.danmakuledger.protocol.wire.EnrollRequest;
import dev.danmakuledger.protocol.wire.WireRecord;
import java.io.IOException;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

/**
 * A device without edge dedupe (older firmware, a third-party client): it appends every message it
 * is given to its signed log, retries included, and syncs them with the same protocol. Its repeats
 * reach the server as new log records, so they exercise the server's own checks: the Redis admit
 * script and, once Redis has forgotten the key, the SQL unique key.
 */
public final class LegacyDevice {
  private final String deviceId;
  private final NoteSigner signer;
  private final SyncClient client;
  private CompactRange range = CompactRange.empty();
  private long hlc = 1L << 16;

  public LegacyDevice(String deviceId, SyncClient client) {
    this.deviceId = deviceId;
    this.signer = NoteSigner.generate(DeviceLog.origin(deviceId), new SecureRandom());
    this.client = client;
  }

  public String deviceId() {
    return deviceId;
  }

  /** The verifier key of its checkpoints. */
  public String verifierKey() {
    return signer.verifierKey();
  }

  /** Enrols the device key. */
  public void enroll(String token) throws IOException {
    client.enroll(
        new EnrollRequest(deviceId, Base64.getEncoder().encodeToString(signer.publicKey()), token));
  }

  /** The log size. */
  public long size() {
    return range.end();
  }

  /** The log root. */
  public byte[] root() {
    return range.root();
  }

  /**
   * Appends {@code drafts} (index and clock are assigned here) and sends them as one batch.
   *
   * @return the server's reply
   */
  public BatchResponse send(List<DanmakuRecord> drafts) throws IOException {
    long oldSize = range.end();
    List<WireRecord> wire = new ArrayList<>();
    CompactRange next = range.copy();
    for (DanmakuRecord d : drafts) {
      DanmakuRecord r = d.withIndexAndHlc(next.end(), hlc++);
      next.append(r.leafHash());
      wire.add(WireRecord.of(r));
    }
    String note =
        Checkpoints.sign(
            new Checkpoint(DeviceLog.origin(deviceId), next.end(), next.root()), signer);
    BatchResponse response =
        client.postBatch(deviceId, new BatchRequest(oldSize, wire, note, null));
    range = next;
    return response;
  }
}
