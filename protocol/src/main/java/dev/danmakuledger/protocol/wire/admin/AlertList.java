package dev.danmakuledger.protocol.wire.admin;

import dev.danmakuledger.protocol.wire.Checks;
import java.util.List;

/**
 * Reply of {@code GET /admin/alerts}.
 *
 * @param alerts the alerts, newest first
 */
public record AlertList(List<AdminEvent> alerts) {
  /** Checks that required members are present and counts are not negative. */
  public AlertList {
    alerts = Checks.list("alerts", alerts);
  }
}
