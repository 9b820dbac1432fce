package dev.danmakuledger.protocol.wire;

import java.util.List;

/**
 * An RFC 9162 §2.1.4 consistency proof between two sizes of a device log.
 *
 * @param deviceId the device
 * @param from the old size
 * @param to the new size
 * @param proofHex the proof hashes, lowercase hex, in RFC 9162 order
 * @param oldRootHex the root at {@code from}, lowercase hex
 * @param newRootHex the root at {@code to}, lowercase hex
 */
public record ConsistencyProofResponse(
    String deviceId,
    long from,
    long to,
    List<String> proofHex,
    String oldRootHex,
    String newRootHex) {
  /** Checks that required members are present and counts are not negative. */
  public ConsistencyProofResponse {
    Checks.required("deviceId", deviceId);
    Checks.nonNegative("from", from);
    Checks.nonNegative("to", to);
    proofHex = Checks.list("proofHex", proofHex);
    Checks.required("oldRootHex", oldRootHex);
    Checks.required("newRootHex", newRootHex);
  }
}
