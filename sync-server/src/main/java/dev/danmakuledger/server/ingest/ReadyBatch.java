package dev.danmakuledger.server.ingest;

import dev.danmakuledger.server.ingest.CheckpointWitness.Extension;
import dev.danmakuledger.server.storage.BatchCommit;
import dev.danmakuledger.server.storage.DeviceRow;
import dev.danmakuledger.server.storage.DeviceSyncStates;
import java.util.Objects;

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
 */
record ReadyBatch(
    DeviceRow device,
    DeviceRow updated,
    RecordTriage.Triage triage,
    Extension extension,
    DeviceSyncStates.Report queue) {
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
