package dev.danmakuledger.edge.sync;

import dev.danmakuledger.edge.keys.DeviceIdentity;
import dev.danmakuledger.protocol.wire.EnrollRequest;
import dev.danmakuledger.protocol.wire.EnrollResponse;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Base64;

/**
 * Enrols a device with a sync server ({@code POST /v1/devices}, docs/sync.md): registers its
 * Ed25519 key under its id with the operator's enrolment token, then records the server and its
 * receipt key in the data directory. Enrolling again with the same key is harmless.
 */
public final class Enrollment {
  private Enrollment() {}

  /**
   * Enrols and saves the {@link ServerLink}.
   *
   * @throws ServerProblemException 403 for a wrong token, 409 if the id is taken by another key
   * @throws IOException if the server is unreachable or its reply is not for this device
   */
  public static ServerLink enroll(
      SyncClient client, DeviceIdentity identity, String enrollToken, Path dataDir)
      throws IOException {
    EnrollResponse r =
        client.enroll(
            new EnrollRequest(
                identity.deviceId(),
                Base64.getEncoder().encodeToString(identity.signer().publicKey()),
                enrollToken));
    if (!identity.deviceId().equals(r.deviceId()) || !identity.origin().equals(r.origin())) {
      throw new IOException(
          "enrol: got device "
              + r.deviceId()
              + " with origin "
              + r.origin()
              + ", want "
              + identity.deviceId()
              + " with origin "
              + identity.origin());
    }
    ServerLink link;
    try {
      link = new ServerLink(client.baseUrl(), r.serverVerifierKey());
    } catch (IllegalArgumentException e) {
      throw new IOException("enrol: the server's receipt key is malformed: " + e.getMessage(), e);
    }
    link.save(dataDir);
    return link;
  }
}
