package dev.danmakuledger.ui.devices;

import static org.junit.jupiter.api.Assertions.assertEquals;

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
