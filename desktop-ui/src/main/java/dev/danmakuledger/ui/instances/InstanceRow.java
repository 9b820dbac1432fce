package dev.danmakuledger.ui.instances;

import dev.danmakuledger.protocol.wire.admin.InstanceList;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Objects;

/**
 * One row of the instances table: an instance as its last heartbeat described it, with the age of
 * that heartbeat on the console's clock when the list was read.
 *
 * @param instance the registry entry
 * @param heartbeatAgeSeconds seconds since its last heartbeat, or -1 when the time is unreadable
 */
public record InstanceRow(InstanceList.Instance instance, long heartbeatAgeSeconds) {
  public InstanceRow {
    Objects.requireNonNull(instance, "instance");
  }

  /** The row of {@code instance} read at {@code now}; a heartbeat "in the future" is 0 s old. */
  static InstanceRow at(InstanceList.Instance instance, Instant now) {
    long age;
    try {
      age = Math.max(0, Duration.between(Instant.parse(instance.heartbeatAt()), now).toSeconds());
    } catch (DateTimeParseException e) {
      age = -1;
    }
    return new InstanceRow(instance, age);
  }

  /** UP when the server saw a recent heartbeat (three intervals), else DOWN. */
  public boolean up() {
    return instance.status() == InstanceList.Status.UP;
  }
}
