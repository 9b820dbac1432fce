package dev.danmakuledger.edge.store;

import java.util.List;
import java.util.Map;

/**
 * Everything one capture transaction writes: the new records {@code [oldSize, newSize)}, the
 * compact range after them, the signed checkpoint for {@code newSize} that covers them, and counter
 * increments. Either all of it is committed or none.
 */
public record AppendBatch(
    long oldSize,
    List<NewRecord> records,
    byte[] compactRange,
    String checkpointNote,
    long createdAt,
    Map<String, Long> counterDeltas) {
  public AppendBatch {
    records = List.copyOf(records);
    counterDeltas = Map.copyOf(counterDeltas);
    for (int i = 0; i < records.size(); i++) {
      if (records.get(i).index() != oldSize + i) {
        throw new IllegalArgumentException(
            "record "
                + i
                + " of batch: got index "
                + records.get(i).index()
                + ", want "
                + (oldSize + i));
      }
    }
    if (!records.isEmpty() && (checkpointNote == null || compactRange == null)) {
      throw new IllegalArgumentException(
          "batch with records: got no checkpoint, want a signed one");
    }
  }

  public long newSize() {
    return oldSize + records.size();
  }
}
