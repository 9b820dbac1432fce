package dev.danmakuledger.bench.ingest;

import dev.danmakuledger.protocol.record.DanmakuRecord;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;

/**
 * One device batch, appended to the device's log, signed and encoded as the request body before it
 * is sent, so that a timed run sends what was made ahead (the baselines too get their rows
 * ready-made).
 */
record PreparedBatch(List<DanmakuRecord> records, byte[] body) {
  /**
   * The next {@code records} records of {@code stream}, in batches of {@code batchSize} (the last
   * one smaller), appended to {@code device}'s log in that order.
   */
  static Deque<PreparedBatch> prepare(
      LedgerClient client,
      SimulatedDevice device,
      MessageStream stream,
      long records,
      int batchSize) {
    Deque<PreparedBatch> out = new ArrayDeque<>();
    for (long n = 0; n < records; ) {
      List<DanmakuRecord> batch = stream.nextBatch((int) Math.min(batchSize, records - n));
      out.add(new PreparedBatch(batch, client.encode(device.append(batch))));
      n += batch.size();
    }
    return out;
  }
}
