package dev.danmakuledger.edge.capture;

import dev.danmakuledger.edge.bloom.BloomFilter;
import dev.danmakuledger.protocol.record.Blind;
import dev.danmakuledger.protocol.record.DanmakuRecord;
import dev.danmakuledger.protocol.record.EncodedRecord;
import java.security.SecureRandom;
import java.util.concurrent.CompletableFuture;

/**
 * A queued capture with everything computed that does not depend on the log state (validated draft
 * encoded once with a fresh blind, key, Bloom hash, content hash), so the writer's critical path
 * does none of it and the planner only places the encoding at its index. New captures are version 2
 * records (docs/canonical-record.md, "Version 2: blinded leaves").
 */
record Pending(
    EncodedRecord encoded,
    String key,
    BloomFilter.Hash bloomHash,
    String contentHash,
    CompletableFuture<CaptureAck> future) {

  /**
   * @param blinds the CSPRNG the record's blind comes from
   */
  static Pending of(CaptureRequest request, String deviceId, SecureRandom blinds) {
    DanmakuRecord draft = request.draft(deviceId);
    String key = draft.key().toString();
    EncodedRecord encoded = draft.encoded().blinded(Blind.random(blinds));
    return new Pending(
        encoded, key, BloomFilter.hash(key), encoded.contentHash(), new CompletableFuture<>());
  }
}
