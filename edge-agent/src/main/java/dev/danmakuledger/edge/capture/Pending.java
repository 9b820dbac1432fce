package dev.danmakuledger.edge.capture;

import dev.danmakuledger.edge.bloom.BloomFilter;
import dev.danmakuledger.protocol.record.DanmakuRecord;
import java.util.concurrent.CompletableFuture;

/**
 * A queued capture with everything computed that does not depend on the log state (validated draft,
 * key, Bloom hash, content hash), so the writer's critical path does none of it.
 */
record Pending(
    DanmakuRecord draft,
    String key,
    BloomFilter.Hash bloomHash,
    String contentHash,
    CompletableFuture<CaptureAck> future) {

  static Pending of(CaptureRequest request, String deviceId) {
    DanmakuRecord draft = request.draft(deviceId);
    String key = draft.key().toString();
    return new Pending(
        draft, key, BloomFilter.hash(key), draft.contentHash(), new CompletableFuture<>());
  }
}
