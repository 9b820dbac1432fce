package dev.danmakuledger.demo.harness;

import dev.danmakuledger.edge.sync.SyncClient;
import dev.danmakuledger.protocol.SigningLog;
import dev.danmakuledger.protocol.record.DanmakuRecord;
import dev.danmakuledger.protocol.wire.BatchRequest;
import dev.danmakuledger.protocol.wire.BatchResponse;
import dev.danmakuledger.protocol.wire.EnrollRequest;
import java.io.IOException;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;

/**
 * A device without edge dedupe (older firmware, a third-party client): it appends every message it
 * is given to its signed log, retries included, and syncs them with the same protocol. Its repeats
 * reach the server as new log records, so they exercise the server's own checks: the Redis admit
 * script and, once Redis has forgotten the key, the SQL unique key.
 */
public final class LegacyDevice {
  private final SyncClient client;
  private SigningLog log;
  private long hlc = 1L << 16;

  public LegacyDevice(String deviceId, SyncClient client) {
    this.log = SigningLog.create(deviceId, new SecureRandom());
    this.client = client;
  }

  public String deviceId() {
    return log.deviceId();
  }

  /** The verifier key of its checkpoints. */
  public String verifierKey() {
    return log.signer().verifierKey();
  }

  /** Enrols the device key. */
  public void enroll(String token) throws IOException {
    client.enroll(new EnrollRequest(log.deviceId(), log.publicKeyBase64(), token));
  }

  /** The log size. */
  public long size() {
    return log.size();
  }

  /** The log root. */
  public byte[] root() {
    return log.root();
  }

  /**
   * Appends {@code drafts} (index and clock are assigned here) and sends them as one batch; the log
   * keeps them only once the server answered.
   *
   * @return the server's reply
   */
  public BatchResponse send(List<DanmakuRecord> drafts) throws IOException {
    SigningLog next = log.copy();
    List<byte[]> bytes = new ArrayList<>(drafts.size());
    long index = next.size();
    for (DanmakuRecord d : drafts) {
      bytes.add(d.withIndexAndHlc(index++, hlc++).canonicalBytes());
    }
    BatchRequest batch = next.append(bytes, leaf -> {}, null);
    BatchResponse response = client.postBatch(log.deviceId(), batch);
    log = next;
    return response;
  }
}
