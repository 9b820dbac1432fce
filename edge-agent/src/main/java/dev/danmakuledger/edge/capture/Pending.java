package dev.danmakuledger.edge.capture;

import dev.danmakuledger.edge.bloom.BloomFilter;
import dev.danmakuledger.protocol.record.DanmakuRecord;
import dev.danmakuledger.protocol.record.EncodedRecord;
import java.util.concurrent.CompletableFuture;

/**
 * A queued capture with everything computed that does not depend on the log state (validated draft
 * encoded once, key, Bloom hash, content hash), so the writer's critical path does none of it and
 * the planner only places the encoding at its index.
 */
record Pending(
    EncodedRecord encoded,
    String key,
    BloomFilter.Hash bloomHash,
    String contentHash,
    CompletableFuture<CaptureAck> future) {

  static Pending of(CaptureRequest request, String deviceId) {
    DanmakuRecord draft = request.draft(deviceId);
    String key = draft.key().toString();
    EncodedRecord encoded = draft.encoded();
    return new Pending(
        encoded, key, BloomFilter.hash(key), encoded.contentHash(), new CompletableFuture<>());
  }
}
