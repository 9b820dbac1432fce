package dev.danmakuledger.server.ingest;

import dev.danmakuledger.merkle.checkpoint.NoteSigner;
import dev.danmakuledger.merkle.checkpoint.NoteVerifier;
import dev.danmakuledger.merkle.compact.CompactRange;
import dev.danmakuledger.merkle.hash.Rfc6962;
import dev.danmakuledger.protocol.DeviceLog;
import dev.danmakuledger.protocol.error.ErrorCode;
import dev.danmakuledger.protocol.wire.EnrollResponse;
import dev.danmakuledger.protocol.wire.admin.AdminEvent;
import dev.danmakuledger.protocol.wire.admin.AdminEvent.Severity;
import dev.danmakuledger.server.LedgerException;
import dev.danmakuledger.server.events.AdminHub;
import dev.danmakuledger.server.events.Events;
import dev.danmakuledger.server.storage.DeviceExistsException;
import dev.danmakuledger.server.storage.DeviceRow;
import dev.danmakuledger.server.storage.LedgerStore;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Clock;
import java.util.Map;

/**
 * The server side of device enrolment ({@code POST /v1/devices}, docs/security.md): an
 * operator-issued token admits a device id with its Ed25519 key; the server then verifies that
 * device's checkpoints with that key only. Enrolling again with the same key is idempotent; another
 * key for a taken id is refused.
 */
public final class DeviceEnroller {
  private final LedgerStore store;
  private final byte[] enrollToken;
  private final NoteSigner serverSigner;
  private final String cosignerVerifierKey;
  private final AdminHub admin;
  private final Clock clock;

  public DeviceEnroller(
      LedgerStore store,
      String enrollToken,
      NoteSigner serverSigner,
      String cosignerVerifierKey,
      AdminHub admin,
      Clock clock) {
    this.store = store;
    this.enrollToken = enrollToken.getBytes(StandardCharsets.UTF_8);
    this.serverSigner = serverSigner;
    this.cosignerVerifierKey = cosignerVerifierKey;
    this.admin = admin;
    this.clock = clock;
  }

  /**
   * Enrols {@code deviceId} with {@code publicKey}.
   *
   * @param deviceId a valid device id (checked at the HTTP boundary)
   * @param publicKey the 32-byte Ed25519 key (checked at the HTTP boundary)
   * @param token the enrolment token the caller presented, or null
   * @throws LedgerException FORBIDDEN for a wrong token, DEVICE_ID_TAKEN for another key
   */
  public EnrollResponse enroll(String deviceId, byte[] publicKey, String token) {
    if (token == null
        || !MessageDigest.isEqual(enrollToken, token.getBytes(StandardCharsets.UTF_8))) {
      throw new LedgerException(
          ErrorCode.FORBIDDEN,
          "enrollToken does not match the server's enroll.token; ask the operator for it");
    }
    String origin = DeviceLog.origin(deviceId);
    NoteVerifier verifier = NoteVerifier.ofEd25519(origin, publicKey);
    long now = clock.millis();
    DeviceRow fresh =
        DeviceRow.enrolled(
            deviceId,
            publicKey,
            verifier.verifierKey(),
            CompactRange.empty().toBytes(),
            Rfc6962.emptyRoot(),
            now);
    try {
      DeviceRow stored = store.enroll(fresh);
      if (stored == fresh) {
        admin.publish(
            Events.of(
                AdminEvent.Type.DEVICE,
                Severity.INFO,
                deviceId,
                null,
                "enrolled " + deviceId,
                now,
                Map.of("new", true)));
      }
    } catch (DeviceExistsException e) {
      throw new LedgerException(
          ErrorCode.DEVICE_ID_TAKEN,
          "device id " + deviceId + " is enrolled with another key; pick another id");
    }
    return new EnrollResponse(deviceId, origin, serverSigner.verifierKey(), cosignerVerifierKey);
  }
}
