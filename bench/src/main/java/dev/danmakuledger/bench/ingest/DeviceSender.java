package dev.danmakuledger.bench.ingest;

import dev.danmakuledger.protocol.record.DanmakuRecord;
import dev.danmakuledger.protocol.wire.BatchResponse;
import dev.danmakuledger.protocol.wire.Outcome;
import dev.danmakuledger.protocol.wire.RecordOutcome;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * One simulated device of a timed {@code bin/bench e2e} run, on a thread of its own: it keeps up to
 * its window of batches in flight on a connection of its own, sends the next batch as the oldest is
 * answered, and counts what the answers say. It stops after its share of the records, or at the
 * deadline of a run of fixed duration.
 *
 * @param device the device whose log the batches extend
 * @param batches where its batches come from: made before the clock, or made as it goes
 * @param connection the device's own connection to the server
 * @param window the most batches in flight (what the server announces, at most {@code --window})
 * @param batchSize records a batch
 * @param records records to send in all ({@link Long#MAX_VALUE} for a run of fixed duration)
 * @param deadlineNanos when to stop sending ({@link Long#MAX_VALUE} for a run of fixed records)
 * @param sink where each answered batch is counted
 */
record DeviceSender(
    SimulatedDevice device,
    Batches batches,
    LedgerClient connection,
    int window,
    int batchSize,
    long records,
    long deadlineNanos,
    Sink sink)
    implements Callable<DeviceSender.Counts> {

  /** Where a device's batches come from. */
  interface Batches {
    /** The device's next batch of at most {@code n} records, appended to its log and encoded. */
    PreparedBatch next(int n);

    /** Batches made before the clock started, sent in order. */
    static Batches prepared(Deque<PreparedBatch> ready) {
      return n -> ready.removeFirst();
    }

    /** Batches made as the device goes, from {@code stream}, on the device's thread. */
    static Batches built(LedgerClient codec, SimulatedDevice device, MessageStream stream) {
      return n -> {
        List<DanmakuRecord> batch = stream.nextBatch(n);
        return new PreparedBatch(batch, codec.encode(device.append(batch)));
      };
    }
  }

  /**
   * What the run keeps of every device's answered batches: the records sent in order, their round
   * trips and the rate as the store grows.
   */
  record Sink(List<List<DanmakuRecord>> sent, Latencies latencies, GrowthWindows growth) {}

  /** What one device sent and what the answers said. */
  record Counts(long records, long confirmed, long duplicates, long resent) {
    static final Counts NONE = new Counts(0, 0, 0, 0);

    Counts plus(Counts o) {
      return new Counts(
          records + o.records,
          confirmed + o.confirmed,
          duplicates + o.duplicates,
          resent + o.resent);
    }
  }

  /** A batch sent and not yet answered. */
  private record InFlight(
      List<DanmakuRecord> records, byte[] body, long sentAt, LedgerClient.SentBatch reply) {}

  @Override
  public Counts call() throws IOException, InterruptedException {
    Latencies lat = new Latencies();
    long sentRecords = 0;
    long confirmed = 0;
    long duplicates = 0;
    long resent = 0;
    long queued = 0;
    Deque<InFlight> unanswered = new ArrayDeque<>(window);
    boolean resuming = false;
    while (true) {
      while (!resuming
          && unanswered.size() < window
          && queued < records
          && System.nanoTime() < deadlineNanos) {
        PreparedBatch next = batches.next((int) Math.min(batchSize, records - queued));
        long t0 = System.nanoTime();
        unanswered.addLast(
            new InFlight(
                next.records(),
                next.body(),
                t0,
                connection.sendBatch(device.deviceId(), next.body())));
        queued += next.records().size();
      }
      InFlight oldest = unanswered.pollFirst();
      if (oldest == null) {
        break;
      }
      LedgerClient.Reply<BatchResponse> reply = oldest.reply().reply();
      if (reply.status() == 409 && "size-mismatch".equals(reply.code())) {
        // It reached the server before the batch it continues (another connection), or that one
        // failed, and those sent after it continue it: as an agent resumes from the verified
        // size, send nothing new until each of them is answered, and send each refused one again
        // alone, in order (every earlier one is answered by then).
        resent++;
        resuming = true;
        reply = connection.postBatch(device.deviceId(), oldest.body());
      }
      if (unanswered.isEmpty()) {
        resuming = false;
      }
      lat.add(System.nanoTime() - oldest.sentAt());
      if (!reply.ok()) {
        throw new IOException(
            "batch of "
                + device.deviceId()
                + " refused: "
                + reply.code()
                + (reply.problem() == null ? "" : " " + reply.problem().detail()));
      }
      List<DanmakuRecord> batch = oldest.records();
      sink.sent().add(batch);
      sink.growth().add(batch.size(), System.nanoTime());
      sentRecords += batch.size();
      for (RecordOutcome oc : reply.body().outcomes()) {
        if (oc.outcome() == Outcome.CONFIRMED) {
          confirmed++;
        } else if (oc.outcome() == Outcome.DUPLICATE) {
          duplicates++;
        }
      }
    }
    sink.latencies().merge(lat);
    return new Counts(sentRecords, confirmed, duplicates, resent);
  }
}
