package dev.danmakuledger.server.storage;

import java.util.Objects;

/**
 * The server's witness state of one device log (docs/architecture.md §4).
 *
 * @param id device id
 * @param publicKey enrolled Ed25519 public key (32 bytes)
 * @param verifierKey enrolled key in note verifier form
 * @param status whether batches are accepted
 * @param statusReason why the device is quarantined, or null
 * @param verifiedSize size of the log the server has verified
 * @param claimedSize largest size the device has claimed in a validly signed checkpoint
 * @param compactRange serialized compact range of the verified log
 * @param rootHash root of the verified log
 * @param lastCheckpoint last accepted device checkpoint (signed note), or null
 * @param lastReceipt last server receipt (cosigned note), or null
 * @param lastCheckpointAt when the last checkpoint was accepted (epoch ms), or null
 * @param lastReceiptAt when the last receipt was issued (epoch ms), or null
 * @param lastSeenAt when the device last sent a batch (epoch ms), or null
 * @param clockSkewMs the device clock it sent with its last batch minus server time at receipt, or
 *     null when it sent none
 * @param signatureFailures checkpoints that failed signature verification
 * @param edge cumulative edge duplicate counters
 * @param version optimistic-lock version
 * @param createdAt enrolment time (epoch ms)
 */
public record DeviceRow(
    String id,
    byte[] publicKey,
    String verifierKey,
    DeviceStatus status,
    String statusReason,
    long verifiedSize,
    long claimedSize,
    byte[] compactRange,
    byte[] rootHash,
    String lastCheckpoint,
    String lastReceipt,
    Long lastCheckpointAt,
    Long lastReceiptAt,
    Long lastSeenAt,
    Long clockSkewMs,
    long signatureFailures,
    EdgeCounters edge,
    long version,
    long createdAt) {

  /** Longest checkpoint note the device row holds ({@code devices.last_checkpoint}). */
  public static final int MAX_CHECKPOINT_CHARS = 2048;

  /** Longest receipt the device row holds ({@code devices.last_receipt}). */
  public static final int MAX_RECEIPT_CHARS = 4096;

  public DeviceRow {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(publicKey, "publicKey");
    Objects.requireNonNull(verifierKey, "verifierKey");
    Objects.requireNonNull(status, "status");
    Objects.requireNonNull(compactRange, "compactRange");
    Objects.requireNonNull(rootHash, "rootHash");
    Objects.requireNonNull(edge, "edge");
    if (publicKey.length != 32) {
      throw new IllegalArgumentException("publicKey: got " + publicKey.length + " bytes, want 32");
    }
    if (verifiedSize < 0 || claimedSize < 0) {
      throw new IllegalArgumentException(
          "sizes: got verified " + verifiedSize + ", claimed " + claimedSize + ", want >= 0");
    }
  }

  /**
   * This row after a verified batch extended the log to {@code size} at {@code now}: the new range
   * and root, the checkpoint and the receipt of that size, contact times, clock skew and edge
   * counters as the batch reported them, and the next version.
   *
   * @param clockSkewMs the device's clock minus the server's, or null when the batch sent none
   */
  public DeviceRow verifiedUpTo(
      long size,
      byte[] range,
      byte[] root,
      String checkpoint,
      String receipt,
      long now,
      Long clockSkewMs,
      EdgeCounters edge) {
    return new DeviceRow(
        id,
        publicKey,
        verifierKey,
        status,
        statusReason,
        size,
        Math.max(claimedSize, size),
        range,
        root,
        checkpoint,
        receipt,
        now,
        now,
        now,
        clockSkewMs,
        signatureFailures,
        edge,
        version + 1,
        createdAt);
  }

  /** A freshly enrolled device with an empty verified log. */
  public static DeviceRow enrolled(
      String id,
      byte[] publicKey,
      String verifierKey,
      byte[] emptyRange,
      byte[] emptyRoot,
      long now) {
    return new DeviceRow(
        id,
        publicKey,
        verifierKey,
        DeviceStatus.ACTIVE,
        null,
        0,
        0,
        emptyRange,
        emptyRoot,
        null,
        null,
        null,
        null,
        null,
        null,
        0,
        EdgeCounters.ZERO,
        0,
        now);
  }
}
