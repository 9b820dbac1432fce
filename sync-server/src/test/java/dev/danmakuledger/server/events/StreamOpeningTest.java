package dev.danmakuledger.server.events;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.danmakuledger.server.storage.ConfirmedFeed;
import dev.danmakuledger.server.storage.Database;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.h2.tools.Server;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A room stream opens on the hub's writer threads, not on the caller's (docs/operations.md, "Room
 * stream limits"): subscribing reads nothing from SQL, so a request thread never waits on the
 * database for a stream, and a stream closed while it opens leaves nothing behind.
 */
final class StreamOpeningTest {
  /** One connection: records what the hub did to it; {@code closed} counts down on close. */
  static final class LatchSink implements Sink {
    final CountDownLatch closed = new CountDownLatch(1);
    volatile Long cutAt;

    @Override
    public void send(LiveMessage m) {}

    @Override
    public void cutOff(long lastCursor, CutReason reason) {
      cutAt = lastCursor;
      closed.countDown();
    }

    @Override
    public void close() {
      closed.countDown();
    }

    @Override
    public boolean closed() {
      return closed.getCount() == 0;
    }
  }

  static final StreamLimits ONE = new StreamLimits(10, Duration.ofSeconds(1), 100, 1, 1, 1, 1, 1);

  @Test
  void subscribingReadsNoSqlSoItReturnsWhileTheDatabaseIsGoneAndTheStreamClosesThen(
      @TempDir Path dir) throws Exception {
    Server tcp =
        Server.createTcpServer("-tcpPort", "0", "-ifNotExists", "-baseDir", dir.toString()).start();
    String url =
        "jdbc:h2:tcp://127.0.0.1:" + tcp.getPort() + "/ledger;MODE=MySQL;DATABASE_TO_LOWER=TRUE";
    try (Database db = Database.open(url, "sa", "")) {
      RoomHub hub = new RoomHub(new ConfirmedFeed(db), null, ONE);
      try {
        tcp.stop();
        LatchSink byCursor = new LatchSink();
        AutoCloseable handle = hub.subscribe(hub.admit("gone", "a"), 0, 0, byCursor);
        assertTrue(byCursor.closed.await(30, TimeUnit.SECONDS), "closed once SQL failed");
        assertNull(byCursor.cutAt, "no resume point: the room's head was never read");
        assertThrows(StreamRefusedException.class, () -> hub.admit("gone", "a"), "still held");
        handle.close();
        assertEquals(0, hub.subscribers("gone"));

        LatchSink bySeq = new LatchSink();
        AutoCloseable second = hub.subscribeAfterSeq(hub.admit("gone", "a"), 7, bySeq);
        assertTrue(bySeq.closed.await(30, TimeUnit.SECONDS), "closed once SQL failed");
        assertNull(bySeq.cutAt, "no resume point: where seq 7 is was never read");
        second.close();
        hub.admit("gone", "a").close();
      } finally {
        hub.close();
      }
    } finally {
      tcp.stop();
    }
  }

  @Test
  void aSubscriptionClosedBeforeItJoinedLeavesTheChannelWhenItJoinsAndGivesItsTicketBackOnce() {
    StreamAdmission admission = new StreamAdmission(ONE);
    List<Object[]> left = new ArrayList<>();
    Subscription s =
        new Subscription(admission.admit("r", "a"), (ch, sub) -> left.add(new Object[] {ch, sub}));
    s.close();
    s.close();
    assertEquals(0, admission.admitted(), "ticket given back once");
    RoomChannel ch = new RoomChannel("r", null, m -> "", 0);
    assertFalse(s.joined(ch), "closed first");
    assertEquals(1, left.size(), "left the channel it joined after the close");
    assertSame(ch, left.get(0)[0]);
    assertNull(left.get(0)[1], "no subscriber was attached");
  }

  @Test
  void aSubscriptionClosedAfterItAttachedLeavesWithItsSubscriber() {
    StreamAdmission admission = new StreamAdmission(ONE);
    List<Object[]> left = new ArrayList<>();
    Subscription s =
        new Subscription(admission.admit("r", "a"), (ch, sub) -> left.add(new Object[] {ch, sub}));
    RoomChannel ch = new RoomChannel("r", null, m -> "", 0);
    assertTrue(s.joined(ch));
    Subscriber sub = new Subscriber(new LatchSink(), 1, Runnable::run, 0);
    assertTrue(s.attached(sub));
    assertEquals(1, admission.admitted());
    s.close();
    assertEquals(0, admission.admitted());
    assertEquals(1, left.size());
    assertSame(ch, left.get(0)[0]);
    assertSame(sub, left.get(0)[1]);
    assertFalse(s.attached(sub), "closed: a late attach is refused");
  }
}
