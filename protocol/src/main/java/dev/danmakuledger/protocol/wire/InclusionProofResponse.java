package dev.danmakuledger.protocol.wire;

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
 */
public record InclusionProofResponse(
    String deviceId,
    long index,
    long size,
    String leafHashHex,
    List<String> proofHex,
    String rootHex,
    String checkpoint) {
  /** Checks that required members are present and counts are not negative. */
  public InclusionProofResponse {
    Checks.required("deviceId", deviceId);
    Checks.nonNegative("index", index);
    Checks.nonNegative("size", size);
    Checks.required("leafHashHex", leafHashHex);
    proofHex = Checks.list("proofHex", proofHex);
    Checks.required("rootHex", rootHex);
  }
}
