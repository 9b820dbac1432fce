package dev.danmakuledger.edge.sync;

import dev.danmakuledger.protocol.error.ErrorCode;

/**
 * Why a refusal by the server stops a sync run, and what the message tells the user to do next
 * (docs/sync.md, "Failures").
 */
final class Refusals {
  private final String deviceId;

  Refusals(String deviceId) {
    this.deviceId = deviceId;
  }

  /**
   * Why a refusal stops the run. Decided by the problem's {@link ErrorCode}; a missing or unknown
   * code (a newer server) falls back to the HTTP status, so it never crashes the run.
   */
  SyncStoppedException stopped(ServerProblemException e) {
    ErrorCode code = e.errorCode().orElse(null);
    if (e.status() == 401) {
      return notEnrolled(e);
    }
    if (code == null) {
      return e.status() == 403 ? refused(e) : protocol(e);
    }
    return switch (code) {
      case NOT_FOUND, UNAUTHENTICATED -> notEnrolled(e);
      case DEVICE_QUARANTINED ->
          new SyncStoppedException(
              SyncStoppedException.Reason.QUARANTINED,
              "device "
                  + deviceId
                  + " is quarantined; all local data is kept; ask an operator ("
                  + e.getMessage()
                  + ")",
              e);
      case FORK_DETECTED, BAD_PROOF ->
          new SyncStoppedException(
              SyncStoppedException.Reason.FORK,
              "FORK: the server says this device's log disagrees with what it verified ("
                  + e.getMessage()
                  + "); the device was cloned, rolled back or tampered with. All local data is"
                  + " kept",
              e);
      default -> e.status() == 403 ? refused(e) : protocol(e);
    };
  }

  private SyncStoppedException notEnrolled(ServerProblemException e) {
    return new SyncStoppedException(
        SyncStoppedException.Reason.NOT_ENROLLED,
        "the server does not know device "
            + deviceId
            + "; enrol it with `edge-agent enroll --server URL --token-file F` ("
            + e.getMessage()
            + ")",
        e);
  }

  private SyncStoppedException refused(ServerProblemException e) {
    return new SyncStoppedException(
        SyncStoppedException.Reason.REFUSED,
        "the server refused device " + deviceId + " (" + e.getMessage() + ")",
        e);
  }

  private static SyncStoppedException protocol(ServerProblemException e) {
    return new SyncStoppedException(
        SyncStoppedException.Reason.PROTOCOL, "the server refused the sync: " + e.getMessage(), e);
  }
}
