package dev.danmakuledger.server.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.danmakuledger.server.storage.DeviceRow;
import dev.danmakuledger.server.storage.DeviceStatus;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class RecentDevicesTest {
  private static final List<byte[]> ONE = List.of(new byte[1]);
  private final AtomicLong now = new AtomicLong(1_000);

  /** The row of {@code id} after {@code version} batches, the last one ending at {@code size}. */
  private static DeviceRow at(String id, long size, long version, DeviceStatus status) {
    DeviceRow row = DeviceRow.enrolled(id, new byte[32], "verifier", new byte[0], new byte[32], 0);
    for (long v = 0; v < version; v++) {
      row = row.verifiedUpTo(size, new byte[0], new byte[32], null, null, 0, null, row.edge());
    }
    return status == DeviceStatus.ACTIVE ? row : quarantined(row);
  }

  private static DeviceRow quarantined(DeviceRow r) {
    return new DeviceRow(
        r.id(),
        r.publicKey(),
        r.verifierKey(),
        DeviceStatus.QUARANTINED,
        "fork",
        r.verifiedSize(),
        r.claimedSize(),
        r.compactRange(),
        r.rootHash(),
        r.lastCheckpoint(),
        r.lastReceipt(),
        r.lastCheckpointAt(),
        r.lastReceiptAt(),
        r.lastSeenAt(),
        r.clockSkewMs(),
        r.signatureFailures(),
        r.edge(),
        r.version() + 1,
        r.createdAt());
  }

  @Test
  void aCommittedRowIsRecalledOnlyForABatchStartingAtItsVerifiedSize() {
    RecentDevices recent = new RecentDevices(10, now::get);
    DeviceRow row = at("d1", 20, 3, DeviceStatus.ACTIVE);
    recent.committed(row);

    assertSame(row, recent.startingAt("d1", 20, ONE));
    assertNull(recent.startingAt("d1", 19, ONE), "a resend reads SQL");
    assertNull(recent.startingAt("d1", 21, ONE), "a batch beyond reads SQL");
    assertNull(recent.startingAt("d2", 0, ONE), "never committed here");
    assertNull(recent.startingAt("d1", 20, List.of()), "an empty batch reads SQL");
  }

  @Test
  void aQuarantinedRowIsNeverRecalled() {
    RecentDevices recent = new RecentDevices(10, now::get);
    recent.committed(at("d1", 20, 3, DeviceStatus.QUARANTINED));

    assertNull(recent.startingAt("d1", 20, ONE));
  }

  @Test
  void anOlderRowDoesNotReplaceANewerOne() {
    RecentDevices recent = new RecentDevices(10, now::get);
    DeviceRow newer = at("d1", 40, 5, DeviceStatus.ACTIVE);
    recent.committed(newer);
    recent.committed(at("d1", 20, 4, DeviceStatus.ACTIVE));

    assertSame(newer, recent.startingAt("d1", 40, ONE));
    assertNull(recent.startingAt("d1", 20, ONE));
  }

  @Test
  void aDeviceFoundStaleReadsSqlForAMinuteEvenAfterCommittingHere() {
    RecentDevices recent = new RecentDevices(10, now::get);
    recent.committed(at("d1", 20, 3, DeviceStatus.ACTIVE));
    recent.stale("d1");
    assertNull(recent.startingAt("d1", 20, ONE));

    DeviceRow next = at("d1", 30, 5, DeviceStatus.ACTIVE);
    recent.committed(next);
    now.addAndGet(RecentDevices.AFTER_STALE.toNanos() - 1);
    assertNull(recent.startingAt("d1", 30, ONE), "one nanosecond before the minute is over");

    now.incrementAndGet();
    assertSame(next, recent.startingAt("d1", 30, ONE));
  }

  @Test
  void atMostTheBoundIsRememberedTheLeastRecentlyUsedDroppedFirst() {
    RecentDevices recent = new RecentDevices(2, now::get);
    recent.committed(at("a", 1, 1, DeviceStatus.ACTIVE));
    recent.committed(at("b", 1, 1, DeviceStatus.ACTIVE));
    recent.startingAt("a", 1, ONE); // a is now the most recently used
    recent.committed(at("c", 1, 1, DeviceStatus.ACTIVE));

    assertEquals(2, recent.size());
    assertNull(recent.startingAt("b", 1, ONE));
    assertEquals("a", recent.startingAt("a", 1, ONE).id());
    assertEquals("c", recent.startingAt("c", 1, ONE).id());

    recent.stale("d"); // a device read from SQL takes a place too, and stays bounded
    assertEquals(2, recent.size());
    assertThrows(IllegalArgumentException.class, () -> new RecentDevices(0, now::get));
  }
}
