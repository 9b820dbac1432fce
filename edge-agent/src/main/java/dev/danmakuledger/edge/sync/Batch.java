package dev.danmakuledger.edge.sync;

import dev.danmakuledger.edge.keys.DeviceIdentity;
import dev.danmakuledger.edge.store.StoredRecord;
import dev.danmakuledger.merkle.checkpoint.Checkpoint;
import dev.danmakuledger.merkle.checkpoint.Checkpoints;
import dev.danmakuledger.protocol.wire.WireRecord;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

/**
 * One batch as it goes to the server (docs/sync.md, "One run", step 3): the records {@code [from,
 * end)} read for sending, their wire form, and the device's checkpoint for exactly {@code end},
 * signed over the verified prefix with the batch's leaves appended. A batch without records shows
 * the server the device's checkpoint for {@code from} (docs/sync.md, "One run", step 1).
 *
 * @param from the size the server verified, the batch's {@code oldSize}
 * @param records the records sent, from index {@code from}
 * @param prefix the log up to the batch's end, which the checkpoint signs
 * @param note the signed checkpoint note of {@code head}
 */
record Batch(
    long from,
    List<StoredRecord> records,
    List<WireRecord> wire,
    LogPrefix prefix,
    Checkpoint head,
    String note) {
  Batch {
    records = List.copyOf(records);
    wire = List.copyOf(wire);
    if (prefix.size() != from + records.size() || head.size() != prefix.size()) {
      throw new IllegalArgumentException(
          "batch from "
              + from
              + ": got "
              + records.size()
              + " records, prefix "
              + prefix.size()
              + " and checkpoint "
              + head.size()
              + ", want the prefix and checkpoint at "
              + (from + records.size()));
    }
  }

  /**
   * The batch of {@code records} on top of {@code base}, with a checkpoint signed now by {@code
   * identity}.
   */
  static Batch of(LogPrefix base, List<StoredRecord> records, DeviceIdentity identity) {
    List<WireRecord> wire = new ArrayList<>(records.size());
    List<byte[]> leaves = new ArrayList<>(records.size());
    for (StoredRecord r : records) {
      leaves.add(r.leafHash());
      wire.add(new WireRecord(r.index(), Base64.getEncoder().encodeToString(r.canonical())));
    }
    LogPrefix prefix = base.append(leaves);
    Checkpoint head = new Checkpoint(identity.origin(), prefix.size(), prefix.root());
    return new Batch(
        base.size(), records, wire, prefix, head, Checkpoints.sign(head, identity.signer()));
  }

  /** Records in the batch. */
  int size() {
    return records.size();
  }

  /** The log size once the server verified the batch. */
  long end() {
    return prefix.size();
  }
}
