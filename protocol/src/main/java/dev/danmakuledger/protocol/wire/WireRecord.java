package dev.danmakuledger.protocol.wire;

import dev.danmakuledger.protocol.record.CanonicalRecord;
import dev.danmakuledger.protocol.record.DanmakuRecord;
import java.util.Base64;

/**
 * One record of a batch: its device log index and its canonical bytes (docs/canonical-record.md) in
 * standard base64 with padding. The server hashes exactly these bytes into the device's tree.
 *
 * @param index the record's index in the device log
 * @param canonical base64 of the canonical record bytes
 */
public record WireRecord(long index, String canonical) {
  /** Checks that the index is not negative and the bytes are present. */
  public WireRecord {
    Checks.nonNegative("index", index);
    Checks.required("canonical", canonical);
  }

  /** Returns the wire form of {@code record}. */
  public static WireRecord of(DanmakuRecord record) {
    return new WireRecord(
        record.index(), Base64.getEncoder().encodeToString(record.canonicalBytes()));
  }

  /**
   * Returns the canonical bytes.
   *
   * @throws IllegalArgumentException if {@code canonical} is not valid base64
   */
  public byte[] canonicalBytes() {
    return Base64.getDecoder().decode(canonical);
  }

  /**
   * Decodes the record.
   *
   * @throws IllegalArgumentException if {@code canonical} is not valid base64
   * @throws dev.danmakuledger.protocol.record.InvalidRecordException if the bytes are not a valid
   *     canonical record
   */
  public DanmakuRecord toRecord() {
    return CanonicalRecord.decode(canonicalBytes());
  }
}
