package dev.danmakuledger.server.roomlog;

import java.util.List;

/**
 * The audit bundle of one room message, {@code danmaku-ledger-audit-bundle/v1} (docs/room-log.md,
 * "Audit bundle"): everything an auditor needs to prove, offline, that room number {@code seq} is a
 * record the device signed and the server witnessed.
 *
 * @param format always {@link #FORMAT}
 * @param room the room
 * @param seq the room sequence number
 * @param entry base64 of the room log entry bytes (leaf {@code seq - 1})
 * @param roomCheckpoint the signed room checkpoint note the room proof is for
 * @param roomInclusion inclusion of the entry in the room checkpoint's tree
 * @param deviceId the capturing device
 * @param record base64 of the record's canonical bytes (docs/canonical-record.md)
 * @param deviceInclusion inclusion of the record in the device checkpoint's tree
 * @param deviceCheckpoint the device checkpoint note of that size with the device's signature and
 *     the server's cosignature (the receipt)
 */
public record AuditBundle(
    String format,
    String room,
    long seq,
    String entry,
    String roomCheckpoint,
    Inclusion roomInclusion,
    String deviceId,
    String record,
    Inclusion deviceInclusion,
    String deviceCheckpoint) {

  /** The format name of this version. */
  public static final String FORMAT = "danmaku-ledger-audit-bundle/v1";

  /**
   * An RFC 9162 inclusion proof.
   *
   * @param index leaf index
   * @param size tree size
   * @param proofHex the proof's hashes, lowercase hex, leaf side first
   */
  public record Inclusion(long index, long size, List<String> proofHex) {
    public Inclusion {
      proofHex = List.copyOf(proofHex);
    }
  }
}
