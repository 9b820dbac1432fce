package dev.danmakuledger.protocol.room;

import java.util.List;

/**
 * The audit bundle of one room message, {@code GET /v1/rooms/{room}/messages/{seq}/bundle}, format
 * {@code danmaku-ledger-audit-bundle/v1} (docs/room-log.md, "Audit bundle"): everything an auditor
 * needs to prove, offline, that room number {@code seq} is a record the device signed and the
 * server witnessed. The server writes it; the console reads it. The constructor checks its shape
 * only (format, required members, bounded proofs): what it proves is checked by whoever reads it,
 * never trusted.
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

  /** Most hashes in one inclusion proof: a tree of fewer than 2^63 leaves needs at most 63. */
  public static final int MAX_PROOF_HASHES = 63;

  /** Checks the format and that the room side is present. */
  public AuditBundle {
    if (!FORMAT.equals(format)) {
      throw new IllegalArgumentException("format: got " + format + ", want " + FORMAT);
    }
    if (room == null || entry == null || roomCheckpoint == null || roomInclusion == null) {
      throw new IllegalArgumentException(
          "room, entry, roomCheckpoint, roomInclusion: got a null member, want all set");
    }
  }

  /**
   * An RFC 9162 §2.1.3 inclusion proof.
   *
   * @param index leaf index
   * @param size tree size
   * @param proofHex the proof's hashes, lowercase hex, leaf side first
   */
  public record Inclusion(long index, long size, List<String> proofHex) {
    /** Checks that the proof is present and no longer than any tree needs. */
    public Inclusion {
      if (proofHex == null || proofHex.size() > MAX_PROOF_HASHES) {
        throw new IllegalArgumentException(
            "proofHex: got "
                + (proofHex == null ? "null" : proofHex.size() + " hashes")
                + ", want at most "
                + MAX_PROOF_HASHES);
      }
      proofHex = List.copyOf(proofHex);
    }
  }
}
