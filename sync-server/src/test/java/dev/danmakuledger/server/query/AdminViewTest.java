package dev.danmakuledger.server.query;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.danmakuledger.server.storage.DeviceRow;
import dev.danmakuledger.server.storage.DeviceStatus;
import dev.danmakuledger.server.storage.EdgeCounters;
import org.junit.jupiter.api.Test;

/** The device status chip of the console (issue 7), derived from the witness state. */
final class AdminViewTest {
  static final long NOW = 10_000_000;

  static DeviceRow device(
      DeviceStatus status,
      String reason,
      long verified,
      long claimed,
      Long checkpointAt,
      Long seenAt,
      long badSignatures) {
    return new DeviceRow(
        "d",
        new byte[32],
        "vk",
        status,
        reason,
        verified,
        claimed,
        new byte[17],
        new byte[32],
        null,
        null,
        checkpointAt,
        checkpointAt,
        seenAt,
        null,
        badSignatures,
        EdgeCounters.ZERO,
        0,
        0);
  }

  @Test
  void forkedQuarantinedBadSignatureBehindOfflineVerified() {
    assertEquals(
        "FORKED",
        AdminView.status(device(DeviceStatus.QUARANTINED, "FORK: x", 5, 5, NOW, NOW, 0), NOW));
    assertEquals(
        "QUARANTINED",
        AdminView.status(device(DeviceStatus.QUARANTINED, "operator", 5, 5, NOW, NOW, 0), NOW));
    assertEquals(
        "BAD_SIGNATURE",
        AdminView.status(device(DeviceStatus.ACTIVE, null, 5, 5, NOW - 10, NOW, 1), NOW));
    assertEquals(
        "BEHIND", AdminView.status(device(DeviceStatus.ACTIVE, null, 5, 9, NOW, NOW, 0), NOW));
    long longAgo = NOW - AdminView.OFFLINE_AFTER.toMillis() - 1;
    assertEquals(
        "OFFLINE",
        AdminView.status(device(DeviceStatus.ACTIVE, null, 5, 5, longAgo, longAgo, 0), NOW));
    assertEquals(
        "OFFLINE", AdminView.status(device(DeviceStatus.ACTIVE, null, 0, 0, null, null, 0), NOW));
    assertEquals(
        "VERIFIED", AdminView.status(device(DeviceStatus.ACTIVE, null, 5, 5, NOW, NOW, 1), NOW));
  }
}
