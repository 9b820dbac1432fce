package dev.danmakuledger.server.ingest;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.SQLTimeoutException;
import java.sql.Statement;
import java.util.concurrent.CountDownLatch;
import org.h2.api.Trigger;

/**
 * An H2 trigger on {@code device_bundles} for the tick tests: the insert of {@link #held} waits,
 * inside its transaction, until {@link #release} opens (so the sequencer is busy and the batches
 * sent meanwhile queue for the next tick), and every insert of {@link #failing} fails as a dropped
 * connection does (SQLSTATE HYT00, transient), also one that was held first; with {@link
 * #failingFrom} set, only its insert of the records from that index on.
 */
public final class HeldCommits implements Trigger {
  public static volatile String held;
  public static volatile String failing;
  public static volatile Long failingFrom;
  public static volatile CountDownLatch entered = new CountDownLatch(1);
  public static volatile CountDownLatch release = new CountDownLatch(1);

  public static void install(String url) throws SQLException {
    try (Connection c = DriverManager.getConnection(url);
        Statement s = c.createStatement()) {
      s.execute(
          "CREATE TRIGGER IF NOT EXISTS held_batches BEFORE INSERT ON device_bundles"
              + " FOR EACH ROW CALL \""
              + HeldCommits.class.getName()
              + "\"");
    }
  }

  @Override
  public void fire(Connection conn, Object[] oldRow, Object[] newRow) throws SQLException {
    Object device = newRow[0];
    if (device.equals(held)) {
      entered.countDown();
      try {
        release.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new SQLException("interrupted while held", e);
      }
    }
    if (device.equals(failing)
        && (failingFrom == null || failingFrom == ((Number) newRow[1]).longValue())) {
      throw new SQLTimeoutException("injected: commit timed out", "HYT00");
    }
  }
}
