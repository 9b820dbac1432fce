package dev.danmakuledger.bench.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.danmakuledger.bench.report.BenchResult;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The database's work per record, the ledger's against the raw insert's. */
class DatabaseWorkTest {
  private static final Measured RAW =
      new Measured("mariadb-raw-insert", 100_000, 1.0, 3, "", Map.of("mariadbd", 10.0));

  @Test
  void comparesRecordsPerDatabaseCpuSecond() {
    Measured ours =
        new Measured("ours", 100_000, 2.5, 90, "", Map.of("mariadbd", 12.5, "redis-server", 7.5));

    BenchResult row = DatabaseWork.row(ours, RAW, 2, "batch 500");

    assertEquals(DatabaseWork.METRIC, row.metric());
    assertEquals(80_000, row.ours(), 1e-6);
    assertEquals(100_000, row.baselineValue(), 1e-6);
    assertEquals(0.8, row.ratio(), 1e-9, "10 µs against 12.5 µs a record");
    // 2 cores over 12.5 + 7.5 µs a record: 100,000 records/s, 1.00 of the raw insert's 100,000/s
    assertTrue(row.note().contains("at most 100,000 records/s"), row.note());
    assertTrue(row.note().contains("1.00 of the raw insert's 100,000/s"), row.note());
  }

  @Test
  void theBacklogRowNamesItsBenchmarkAndNoMachineBound() {
    Measured ours = new Measured("ours", 300_000, 12.0, Double.NaN, "", Map.of("mariadbd", 16.0));

    BenchResult row = DatabaseWork.row("backlog", ours, RAW, "1 device");

    assertEquals("backlog", row.benchmark());
    assertEquals(0.625, row.ratio(), 1e-9);
    assertTrue(row.note().startsWith("1 device; database CPU per record"), row.note());
    assertFalse(row.note().contains("at most"), row.note());
  }

  @Test
  void readsMysqldWhereThereIsNoMariadbd() {
    Measured ours = new Measured("ours", 10, 1.0, 1, "", Map.of("mysqld", 20.0));
    Measured raw = new Measured("mariadb-raw-insert", 10, 1.0, 1, "", Map.of("mysqld", 10.0));

    assertEquals(0.5, DatabaseWork.row(ours, raw, 2, "").ratio(), 1e-9);
  }

  @Test
  void isNotMeasuredWithoutTheDatabaseProcessOnBothSides() {
    Measured ours = new Measured("ours", 10, 1.0, 1, "", Map.of("redis-server", 3.0));

    BenchResult row = DatabaseWork.row(ours, RAW, 2, "");

    assertEquals("e2e", row.benchmark());
    assertNull(row.ours());
    assertNull(row.ratio());
    assertTrue(row.note().startsWith("not measured: "), row.note());
  }

  @Test
  void watchesOnlyADatabaseOnThisMachine() {
    assertTrue(DatabaseWork.local("jdbc:mariadb://127.0.0.1:3306/?user=root"));
    assertTrue(DatabaseWork.local("jdbc:mysql://localhost/test"));
    assertTrue(DatabaseWork.local("jdbc:mariadb://[::1]:3306/test"));
    assertFalse(DatabaseWork.local("jdbc:mariadb://db.example:3306/test"));
    assertFalse(DatabaseWork.local("jdbc:mariadb://127.0.0.1.example:3306/test"));
    assertFalse(DatabaseWork.local(null));
  }
}
