package dev.danmakuledger.demo;

import dev.danmakuledger.edge.capture.CaptureAck;
import dev.danmakuledger.protocol.wire.RecordOutcome;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What the demo's story injected and what came back at the moment it was injected: the acks of the
 * repeats at the edge, the legacy device's batch replies, the lost replies on the lossy link. The
 * verifier compares these with what the server holds afterwards; nothing here is a verdict.
 *
 * @param fileEntries entries read from the Bilibili file
 * @param doubleClicks each double click: the ack of the first submit and of the second
 * @param retries retries after the ack, before any sync: idempotency key to the retry's ack
 * @param edgeRepeats per agent, repeats submitted to it (double clicks, retries, retries after
 *     sync)
 * @param editedResends per agent, resends of a key with edited text (one each)
 * @param editedResendsRefused per agent, edited resends the edge refused as conflicts
 * @param legacyFirst the legacy device's first batch: idempotency key to its outcome
 * @param legacyRepeats outcomes of its repeats and conflicting resends before the Redis wipe
 * @param legacyAfterWipe outcomes of its repeats after the Redis wipe
 * @param retriesAfterSync retries on the direct agent after it synced: key to the retry's ack
 * @param proxiedBatches batch requests that went through the lossy link
 * @param lostReplies of those, replies dropped after the server had answered
 */
record Injected(
    int fileEntries,
    List<DoubleClick> doubleClicks,
    Map<String, CaptureAck> retries,
    Map<String, Long> edgeRepeats,
    Map<String, Long> editedResends,
    Map<String, Long> editedResendsRefused,
    Map<String, RecordOutcome> legacyFirst,
    List<RecordOutcome> legacyRepeats,
    List<RecordOutcome> legacyAfterWipe,
    Map<String, CaptureAck> retriesAfterSync,
    long proxiedBatches,
    long lostReplies) {

  /** Both acks of one double click (two submits of the same capture at once). */
  record DoubleClick(CaptureAck first, CaptureAck second) {
    DoubleClick {
      if (first == null || second == null) {
        throw new IllegalArgumentException("double click: got a missing ack, want both");
      }
    }
  }

  Injected {
    if (fileEntries <= DemoPlan.LEGACY_SHARE) {
      throw new IllegalArgumentException(
          "fileEntries: got " + fileEntries + ", want more than " + DemoPlan.LEGACY_SHARE);
    }
    if (lostReplies < 0 || lostReplies > proxiedBatches) {
      throw new IllegalArgumentException(
          "lostReplies: got " + lostReplies + ", want 0.." + proxiedBatches + " (batches seen)");
    }
    doubleClicks = List.copyOf(doubleClicks);
    retries = ordered(retries);
    edgeRepeats = ordered(edgeRepeats);
    editedResends = ordered(editedResends);
    editedResendsRefused = ordered(editedResendsRefused);
    legacyFirst = ordered(legacyFirst);
    legacyRepeats = List.copyOf(legacyRepeats);
    legacyAfterWipe = List.copyOf(legacyAfterWipe);
    retriesAfterSync = ordered(retriesAfterSync);
  }

  /** Repeats submitted to all agents. */
  long edgeRepeatsTotal() {
    return sum(edgeRepeats);
  }

  long editedResendsTotal() {
    return sum(editedResends);
  }

  long editedResendsRefusedTotal() {
    return sum(editedResendsRefused);
  }

  private static long sum(Map<String, Long> perAgent) {
    return perAgent.values().stream().mapToLong(Long::longValue).sum();
  }

  /** An unmodifiable copy that keeps the iteration order, which the report prints. */
  private static <K, V> Map<K, V> ordered(Map<K, V> m) {
    return Collections.unmodifiableMap(new LinkedHashMap<>(m));
  }
}
