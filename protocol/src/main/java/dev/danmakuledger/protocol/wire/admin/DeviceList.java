package dev.danmakuledger.protocol.wire.admin;

import dev.danmakuledger.protocol.wire.Checks;
import java.util.List;

/**
 * Reply of {@code GET /admin/devices}.
 *
 * @param devices the devices
 */
public record DeviceList(List<DeviceSummary> devices) {
  /** Checks that required members are present and counts are not negative. */
  public DeviceList {
    devices = Checks.list("devices", devices);
  }
}
