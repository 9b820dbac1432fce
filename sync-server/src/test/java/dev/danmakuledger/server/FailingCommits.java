package dev.danmakuledger.server;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.SQLTimeoutException;
import java.sql.Statement;
import org.h2.api.Trigger;

/**
 * Makes SQL commits of batches fail on an H2 database, the way a dropped connection does: an H2
 * trigger on {@code device_bundles} throws a timeout (SQLSTATE HYT00, transient) while {@link
 * #failing} is set, so the whole batch transaction rolls back after Redis admitted its records and
 * the client gets 503. {@link #failingDevice} makes only the inserts of one device fail: inside a
 * tick of several devices' batches, the transaction of the whole tick fails because of one batch;
 * with {@link #failingFrom} set as well, only its insert of the records from that index on, so one
 * of a device's batches in flight fails and the others do not.
 */
public final class FailingCommits implements Trigger {
  /** While true, every insert into {@code device_bundles} fails. */
  static volatile boolean failing;

  /** While set, every insert into {@code device_bundles} of this device fails. */
  static volatile String failingDevice;

  /** While set, only the inserts of {@link #failingDevice} that start at this index fail. */
  static volatile Long failingFrom;

  /** Installs the trigger on the H2 database at {@code url} (same JVM, shared database). */
  static void install(String url) throws SQLException {
    try (Connection c = DriverManager.getConnection(url);
        Statement s = c.createStatement()) {
      s.execute(
          "CREATE TRIGGER IF NOT EXISTS fail_batches BEFORE INSERT ON device_bundles"
              + " FOR EACH ROW CALL \""
              + FailingCommits.class.getName()
              + "\"");
    }
  }

  @Override
  public void fire(Connection conn, Object[] oldRow, Object[] newRow) throws SQLException {
    if (failing
        || (failingDevice != null
            && failingDevice.equals(newRow[0])
            && (failingFrom == null || failingFrom == ((Number) newRow[1]).longValue()))) {
      throw new SQLTimeoutException("injected: commit timed out", "HYT00");
    }
  }
}
