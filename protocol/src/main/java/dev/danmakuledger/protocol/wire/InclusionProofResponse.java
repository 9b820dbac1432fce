package dev.danmakuledger.protocol.wire;

import java.util.Base64;
import java.util.List;

/**
 * An RFC 9162 §2.1.3 inclusion proof for one leaf of a device log, with the checkpoint it verifies
 * against.
 *
 * @param deviceId the device
 * @param index the leaf index
 * @param size the tree size
 * @param leafHashHex the leaf hash, lowercase hex
 * @param proofHex the proof hashes, lowercase hex, in RFC 9162 order
 * @param rootHex the root of the tree of {@code size}, lowercase hex
 * @param checkpoint the device-signed checkpoint note for {@code size}, or null
 * @param canonical the leaf's canonical record bytes (docs/canonical-record.md) in standard base64
 *     with padding, so a client can recompute the leaf hash and compare the record with the message
 *     the server shows; null from a server that does not send them
 */
public record InclusionProofResponse(
    String deviceId,
    long index,
    long size,
    String leafHashHex,
    List<String> proofHex,
    String rootHex,
    String checkpoint,
    String canonical) {
  /**
   * Checks that required members are present, counts are not negative and {@code canonical}, when
   * present, is standard base64.
   */
  public InclusionProofResponse {
    Checks.required("deviceId", deviceId);
    Checks.nonNegative("index", index);
    Checks.nonNegative("size", size);
    Checks.required("leafHashHex", leafHashHex);
    proofHex = Checks.list("proofHex", proofHex);
    Checks.required("rootHex", rootHex);
    if (canonical != null) {
      try {
        Base64.getDecoder().decode(canonical);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(
            "canonical: got malformed base64 (" + e.getMessage() + "), want standard base64", e);
      }
    }
  }

  /** Returns the leaf's canonical record bytes, or null when the server did not send them. */
  public byte[] canonicalBytes() {
    return canonical == null ? null : Base64.getDecoder().decode(canonical);
  }
}
