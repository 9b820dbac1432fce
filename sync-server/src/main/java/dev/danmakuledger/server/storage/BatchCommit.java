package dev.danmakuledger.server.storage;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * Everything one verified batch writes, committed atomically by {@link LedgerStore#commit}
 * (docs/architecture.md §4: "the new verified size, the records' outcomes and the receipt commit
 * together, with optimistic locking on the device row").
 *
 * @param expectedVersion the device row version the batch was verified against
 * @param expectedVerifiedSize the verified size the batch starts at (its first leaf)
 * @param device the device row after the batch (its version is ignored: the store increments it)
 * @param records the batch's records with their outcomes
 * @param nodes the perfect-subtree hashes the batch completed
 * @param messages new room slots: messages and tombstones
 * @param counterDeltas counter increments, applied in name order
 * @param queue the upload queue state the batch reported (docs/sync-server.md, "Stuck devices"),
 *     stored with it; null when it reported none
 */
public record BatchCommit(
    long expectedVersion,
    long expectedVerifiedSize,
    DeviceRow device,
    List<DeviceRecordRow> records,
    List<NodeRow> nodes,
    List<MessageRow> messages,
    Map<String, Long> counterDeltas,
    DeviceSyncStates.Report queue) {

  public BatchCommit {
    Objects.requireNonNull(device, "device");
    if (expectedVerifiedSize < 0 || expectedVerifiedSize > device.verifiedSize()) {
      throw new IllegalArgumentException(
          "expectedVerifiedSize: got "
              + expectedVerifiedSize
              + ", want 0.."
              + device.verifiedSize());
    }
    records = List.copyOf(records);
    nodes = List.copyOf(nodes);
    messages = List.copyOf(messages);
    counterDeltas = new TreeMap<>(counterDeltas);
    if (queue != null && !queue.state().deviceId().equals(device.id())) {
      throw new IllegalArgumentException(
          "queue report device: got " + queue.state().deviceId() + ", want " + device.id());
    }
    for (DeviceRecordRow r : records) {
      if (!r.deviceId().equals(device.id())) {
        throw new IllegalArgumentException(
            "record device: got " + r.deviceId() + ", want " + device.id());
      }
    }
  }

  /**
   * Whether this batch starts from the device row {@code before} leaves: the same device, at the
   * size and version that batch writes (docs/architecture.md §5, "Batches in flight").
   */
  public boolean continues(BatchCommit before) {
    return device.id().equals(before.device().id())
        && expectedVerifiedSize == before.device().verifiedSize()
        && expectedVersion == before.device().version();
  }
}
