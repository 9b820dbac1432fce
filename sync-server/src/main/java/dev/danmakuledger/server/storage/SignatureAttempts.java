package dev.danmakuledger.server.storage;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.LongFunction;
import javax.sql.DataSource;

/**
 * Checkpoints that did not verify under a device's enrolled key (docs/security.md): unauthenticated
 * attempts, so they are counted beside the device and never change its state. A device gets at most
 * one alert per window; later attempts of the window update that alert's count in place.
 */
public final class SignatureAttempts {
  private final DataSource ds;

  public SignatureAttempts(Database db) {
    this.ds = db.dataSource();
  }

  /** What a recorded attempt did: the window's count, and the alert if this attempt raised it. */
  public record Recorded(long windowAttempts, Optional<AlertRow> newAlert) {}

  /**
   * Records one attempt for {@code deviceId} from {@code address} at {@code now}, with the counter
   * and the alert (new or updated), in one transaction.
   *
   * @param alertFor the alert (not yet stored) describing a window with this many attempts
   * @throws StorageUnavailableException when the database cannot be reached
   */
  public Recorded record(
      String deviceId, String address, long now, Duration window, LongFunction<AlertRow> alertFor) {
    for (int attempt = 1; ; attempt++) {
      try {
        return Jdbc.inTransaction(
            ds,
            "bad signature of " + deviceId,
            c -> {
              Recorded r = recordIn(c, deviceId, truncate(address), now, window, alertFor);
              Jdbc.addCounters(c, Map.of(Counter.SIGNATURE_FAILURES.key(), 1L));
              return r;
            });
      } catch (IllegalStateException e) {
        if (attempt >= 3
            || !(e.getCause() instanceof SQLException s && Jdbc.isUniqueViolation(s))) {
          throw e;
        }
      }
    }
  }

  private static String truncate(String address) {
    return address == null || address.length() <= 64 ? address : address.substring(0, 64);
  }

  private static Recorded recordIn(
      Connection c,
      String deviceId,
      String address,
      long now,
      Duration window,
      LongFunction<AlertRow> alertFor)
      throws SQLException {
    long windowStart;
    long windowAttempts;
    Long alertId;
    boolean exists;
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT window_start, window_attempts, alert_id FROM signature_attempts"
                + " WHERE device_id = ? FOR UPDATE")) {
      ps.setString(1, deviceId);
      try (ResultSet rs = ps.executeQuery()) {
        exists = rs.next();
        windowStart = exists ? rs.getLong(1) : 0;
        windowAttempts = exists ? rs.getLong(2) : 0;
        alertId = exists ? Jdbc.getLong(rs, 3) : null;
      }
    }
    boolean newWindow = !exists || alertId == null || now >= windowStart + window.toMillis();
    long count = newWindow ? 1 : windowAttempts + 1;
    AlertRow alert = alertFor.apply(count);
    Optional<AlertRow> raised = Optional.empty();
    if (newWindow) {
      AlertRow stored = AlertStore.insert(c, alert);
      alertId = stored.id();
      windowStart = now;
      raised = Optional.of(stored);
    } else {
      try (PreparedStatement ps =
          c.prepareStatement("UPDATE alerts SET message = ?, data_json = ? WHERE id = ?")) {
        ps.setString(1, alert.message());
        ps.setString(2, alert.dataJson());
        ps.setLong(3, alertId);
        ps.executeUpdate();
      }
    }
    if (exists) {
      try (PreparedStatement ps =
          c.prepareStatement(
              "UPDATE signature_attempts SET attempts = attempts + 1, window_start = ?,"
                  + " window_attempts = ?, alert_id = ?, last_address = ?, last_at = ?"
                  + " WHERE device_id = ?")) {
        ps.setLong(1, windowStart);
        ps.setLong(2, count);
        ps.setLong(3, alertId);
        ps.setString(4, address);
        ps.setLong(5, now);
        ps.setString(6, deviceId);
        ps.executeUpdate();
      }
    } else {
      try (PreparedStatement ps =
          c.prepareStatement(
              "INSERT INTO signature_attempts (device_id, attempts, window_start, window_attempts,"
                  + " alert_id, last_address, last_at) VALUES (?, 1, ?, 1, ?, ?, ?)")) {
        ps.setString(1, deviceId);
        ps.setLong(2, windowStart);
        ps.setLong(3, alertId);
        ps.setString(4, address);
        ps.setLong(5, now);
        ps.executeUpdate();
      }
    }
    return new Recorded(count, raised);
  }

  /** Attempts recorded per device, for the devices that have any. */
  public Map<String, Long> counts() {
    return Jdbc.read(
        ds,
        "signature attempts",
        c -> {
          Map<String, Long> out = new HashMap<>();
          try (PreparedStatement ps =
                  c.prepareStatement("SELECT device_id, attempts FROM signature_attempts");
              ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
              out.put(rs.getString(1), rs.getLong(2));
            }
          }
          return out;
        });
  }
}
