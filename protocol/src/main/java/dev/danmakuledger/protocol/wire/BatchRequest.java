package dev.danmakuledger.protocol.wire;

import java.util.List;

/**
 * Body of {@code POST /v1/devices/{deviceId}/batches}: the records {@code [oldSize, newSize)} of
 * the device log and the signed checkpoint for {@code newSize} (docs/architecture.md §4, after the
 * C2SP witness protocol).
 *
 * @param oldSize the size the device believes the server has verified
 * @param records the records in log order, indices {@code oldSize..newSize-1}
 * @param checkpoint the device-signed note of the checkpoint for {@code newSize}
 * @param metadata the edge's cumulative duplicate counters, or null
 */
public record BatchRequest(
    long oldSize, List<WireRecord> records, String checkpoint, BatchMetadata metadata) {
  /** Checks that required members are present and counts are not negative. */
  public BatchRequest {
    Checks.nonNegative("oldSize", oldSize);
    records = Checks.list("records", records);
    Checks.required("checkpoint", checkpoint);
  }
}
