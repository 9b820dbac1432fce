package dev.danmakuledger.server.query;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.danmakuledger.protocol.wire.admin.DeviceQueue;
import dev.danmakuledger.protocol.wire.admin.DeviceSummary;
import dev.danmakuledger.server.storage.DeviceRow;
import dev.danmakuledger.server.storage.DeviceStatus;
import dev.danmakuledger.server.storage.DeviceSyncState;
import dev.danmakuledger.server.storage.EdgeCounters;
import java.time.Clock;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The device status chip of the console (docs/console.md), derived from the witness state. */
final class AdminViewTest {
  static final long NOW = 10_000_000;
  static final Duration TEN_MINUTES = Duration.ofMinutes(10);

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
  void forkedQuarantinedBehindOfflineVerified() {
    assertEquals(
        DeviceSummary.Status.FORKED,
        AdminView.status(
            device(DeviceStatus.QUARANTINED, "FORK: x", 5, 5, NOW, NOW, 0), NOW, TEN_MINUTES));
    assertEquals(
        DeviceSummary.Status.QUARANTINED,
        AdminView.status(
            device(DeviceStatus.QUARANTINED, "operator", 5, 5, NOW, NOW, 0), NOW, TEN_MINUTES));
    assertEquals(
        DeviceSummary.Status.VERIFIED,
        AdminView.status(
            device(DeviceStatus.ACTIVE, null, 5, 5, NOW - 10, NOW, 1), NOW, TEN_MINUTES),
        "failed signatures are unauthenticated and never change the status");
    assertEquals(
        DeviceSummary.Status.BEHIND,
        AdminView.status(device(DeviceStatus.ACTIVE, null, 5, 9, NOW, NOW, 0), NOW, TEN_MINUTES));
    long longAgo = NOW - TEN_MINUTES.toMillis() - 1;
    assertEquals(
        DeviceSummary.Status.OFFLINE,
        AdminView.status(
            device(DeviceStatus.ACTIVE, null, 5, 5, longAgo, longAgo, 0), NOW, TEN_MINUTES));
    assertEquals(
        DeviceSummary.Status.OFFLINE,
        AdminView.status(device(DeviceStatus.ACTIVE, null, 0, 0, null, null, 0), NOW, TEN_MINUTES));
    assertEquals(
        DeviceSummary.Status.VERIFIED,
        AdminView.status(device(DeviceStatus.ACTIVE, null, 5, 5, NOW, NOW, 1), NOW, TEN_MINUTES));
  }

  @Test
  void theOfflineThresholdIsTheConfiguredOne() {
    Duration threshold = Duration.ofSeconds(30);
    DeviceRow recent = device(DeviceStatus.ACTIVE, null, 5, 5, NOW - 30_000, NOW - 30_000, 0);
    DeviceRow silent = device(DeviceStatus.ACTIVE, null, 5, 5, NOW - 30_001, NOW - 30_001, 0);
    assertEquals(DeviceSummary.Status.VERIFIED, AdminView.status(recent, NOW, threshold));
    assertEquals(DeviceSummary.Status.OFFLINE, AdminView.status(silent, NOW, threshold));
    assertEquals(DeviceSummary.Status.VERIFIED, AdminView.status(silent, NOW, TEN_MINUTES));
  }

  @Test
  void aThresholdThatIsNotPositiveIsRefused() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> new AdminView(null, null, null, Clock.systemUTC(), Duration.ZERO));
    assertEquals("offlineAfter: got PT0S, want > 0", e.getMessage());
  }

  @Test
  void storedAgesNearTheLargestLongSaturateInsteadOfOverflowing() {
    DeviceSyncState huge =
        new DeviceSyncState(
            "d", 0L, Long.MAX_VALUE - 5, Long.MAX_VALUE - 5, "ok", NOW - 60_000, null, 0L);
    DeviceQueue q = AdminView.queue(huge, 0, NOW);
    assertEquals(Long.MAX_VALUE, q.oldestUnsyncedAgeMs());
    assertEquals(Long.MAX_VALUE, q.lastAttemptAgeMs());
  }
}
