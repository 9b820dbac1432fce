package dev.danmakuledger.server.ingest;

import dev.danmakuledger.server.ingest.CheckpointWitness.Extension;
import dev.danmakuledger.server.storage.BatchCommit;
import dev.danmakuledger.server.storage.DeviceRow;
import dev.danmakuledger.server.storage.DeviceSyncStates;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;

/**
 * A batch the request stages have finished with (docs/architecture.md §5, "Ticks"): witnessed
 * against its device row, every record triaged, the device row it commits computed. The hand-off
 * from a request to the tick that admits and commits it; nothing in it changes afterwards.
 *
 * @param device the device row the batch was verified against
 * @param updated the device row after the batch
 * @param triage the candidates by room and the REJECTED rows
 * @param extension the device tree's new range, proof nodes and leaf hashes
 * @param queue the queue state the batch reported, or null
 * @param predecessor when {@code device} is the row the tick of a batch before this one leaves
 *     (docs/architecture.md §5, "Batches in flight"), that tick's commit of it: this batch commits
 *     only once that one did; null when {@code device} was committed already
 */
record ReadyBatch(
    DeviceRow device,
    DeviceRow updated,
    RecordTriage.Triage triage,
    Extension extension,
    DeviceSyncStates.Report queue,
    CompletableFuture<?> predecessor) {
  ReadyBatch {
    Objects.requireNonNull(device, "device");
    Objects.requireNonNull(updated, "updated");
    Objects.requireNonNull(triage, "triage");
    Objects.requireNonNull(extension, "extension");
    if (!updated.id().equals(device.id())) {
      throw new IllegalArgumentException(
          "updated device: got " + updated.id() + ", want " + device.id());
    }
  }

  String deviceId() {
    return device.id();
  }

  /**
   * Why this batch must not commit because of the batch it follows: that one failed, or has not
   * committed yet, so the row this one starts from is not the device's; null when it may commit.
   */
  Throwable predecessorFailure() {
    if (predecessor == null) {
      return null;
    }
    if (!predecessor.isDone()) {
      return new IllegalStateException("the batch before this one has not committed yet");
    }
    return predecessor.handle((done, failed) -> failed).getNow(null);
  }

  /** Records the batch appends to its device log. */
  long records() {
    return updated.verifiedSize() - device.verifiedSize();
  }

  /** What the batch's transaction writes, given its assembled plan. */
  BatchCommit commit(BatchAssembly.RoundWrites plan) {
    return new BatchCommit(
        device.version(),
        device.verifiedSize(),
        updated,
        plan.rows(),
        extension.nodes(),
        plan.messages(),
        plan.counters(),
        queue);
  }
}
