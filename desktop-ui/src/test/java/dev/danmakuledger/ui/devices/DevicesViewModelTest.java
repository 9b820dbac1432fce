package dev.danmakuledger.ui.devices;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.danmakuledger.protocol.wire.admin.DeviceQueue;
import dev.danmakuledger.protocol.wire.admin.DeviceSummary;
import dev.danmakuledger.ui.testing.Harness;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class DevicesViewModelTest {
  private final Harness h = new Harness();
  private final DevicesViewModel vm = new DevicesViewModel(h.context);

  @AfterEach
  void close() {
    h.close();
  }

  private List<String> shown() {
    return vm.devices().stream().map(DeviceSummary::deviceId).toList();
  }

  @Test
  void filtersByIdOrStatusAndCountsTroubledDevices() {
    h.json("devices.json");
    vm.refresh();
    assertEquals(List.of("kiosk-1", "phone-12", "venue-3"), shown());
    assertEquals(2, vm.needAttention().get());
    assertEquals(1, vm.withBadSignatures().get(), "kiosk-1 is VERIFIED with 3 forged attempts");
    assertEquals(
        List.of(3L, 0L, 0L),
        vm.devices().stream().map(DeviceSummary::badSignatureAttempts).toList());
    vm.setFilter("FORK");
    assertEquals(List.of("venue-3"), shown());
    vm.setFilter(" PHONE ");
    assertEquals(List.of("phone-12"), shown());
    vm.setFilter("");
    assertEquals(3, shown().size());
  }

  @Test
  void queueColumnsSayUnknownForADeviceThatNeverReportedAndFlagStuckDevices() {
    h.json("devices.json");
    vm.refresh();
    assertEquals(
        List.of("none", "12 min", DevicesViewModel.UNKNOWN),
        vm.devices().stream().map(DevicesViewModel::oldestUnsynced).toList(),
        "kiosk-1 drained, phone-12 waits since 750 s, venue-3 runs an older agent");
    assertEquals(
        List.of("ok, 4 s ago", "bad-proof, 30 s ago", DevicesViewModel.UNKNOWN),
        vm.devices().stream().map(DevicesViewModel::lastAttempt).toList());
    assertEquals(
        List.of(false, true, false), vm.devices().stream().map(DevicesViewModel::isStuck).toList());
    assertEquals(1, vm.stuck().get());
  }

  @Test
  void aQueueWithoutAnAttemptShowsUnknownNotABogusAge() {
    DeviceSummary d =
        new DeviceSummary(
            "d",
            DeviceSummary.Status.VERIFIED,
            1,
            1,
            null,
            null,
            null,
            null,
            0,
            null,
            0L,
            new DeviceQueue(61_000L, null, null, false, "2026-11-30T05:00:00Z"));
    assertEquals("1 min", DevicesViewModel.oldestUnsynced(d));
    assertEquals(DevicesViewModel.UNKNOWN, DevicesViewModel.lastAttempt(d));
    assertFalse(DevicesViewModel.isStuck(d));
    assertEquals(DevicesViewModel.UNKNOWN, DevicesViewModel.report(d), "an older server");
  }

  @Test
  void aReportShowsWhetherTheDeviceSignedIt() {
    for (Boolean signed : new Boolean[] {true, false}) {
      DeviceSummary d =
          new DeviceSummary(
              "d",
              DeviceSummary.Status.VERIFIED,
              1,
              1,
              null,
              null,
              null,
              null,
              0,
              null,
              0L,
              new DeviceQueue(null, 1_000L, "ok", false, "2026-11-30T05:00:00Z", signed));
      assertEquals(signed ? "signed" : "unsigned", DevicesViewModel.report(d));
    }
  }

  @Test
  void filterSurvivesARefresh() {
    h.json("devices.json");
    vm.refresh();
    vm.setFilter("verified");
    h.json("devices.json");
    vm.refresh();
    assertEquals(List.of("kiosk-1"), shown());
  }

  @Test
  void lastListIsRestoredFromHistory() {
    h.json("devices.json");
    vm.refresh();
    DevicesViewModel restarted = new DevicesViewModel(h.context);
    restarted.restore();
    assertEquals(3, restarted.devices().size());
  }
}
