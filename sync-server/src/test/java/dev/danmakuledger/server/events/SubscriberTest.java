package dev.danmakuledger.server.events;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import org.junit.jupiter.api.Test;

class SubscriberTest {
  /** Runs writer tasks only when the test says so: a connection that is not being written. */
  static final class ManualWriters implements java.util.concurrent.Executor {
    final Queue<Runnable> tasks = new ArrayDeque<>();

    @Override
    public void execute(Runnable r) {
      tasks.add(r);
    }

    void runAll() {
      for (Runnable r = tasks.poll(); r != null; r = tasks.poll()) {
        r.run();
      }
    }
  }

  static final class RecordingSink implements Sink {
    final List<Long> sent = new ArrayList<>();
    Long cutAt;
    CutReason reason;
    boolean closed;

    @Override
    public void send(LiveMessage m) {
      sent.add(m.cursor());
    }

    @Override
    public void cutOff(long lastCursor, CutReason reason) {
      cutAt = lastCursor;
      this.reason = reason;
      closed = true;
    }

    @Override
    public void close() {
      closed = true;
    }

    @Override
    public boolean closed() {
      return closed;
    }
  }

  static LiveMessage m(long cursor) {
    return new LiveMessage(cursor, "{\"seq\":" + cursor + "}");
  }

  @Test
  void sendsEachCursorOnceInOrder() {
    ManualWriters writers = new ManualWriters();
    RecordingSink sink = new RecordingSink();
    Subscriber s = new Subscriber(sink, 10, writers, 2);
    for (long c : new long[] {1, 2, 3, 4, 4, 3, 5}) {
      assertTrue(s.offer(m(c)));
    }
    writers.runAll();
    assertEquals(List.of(3L, 4L, 5L), sink.sent);
  }

  @Test
  void aSubscriberThatFallsTooFarBehindIsCutOffAtItsLastSentCursor() {
    ManualWriters writers = new ManualWriters();
    RecordingSink sink = new RecordingSink();
    Subscriber s = new Subscriber(sink, 3, writers, 0);
    assertTrue(s.offer(m(1)));
    writers.runAll();
    assertTrue(s.offer(m(2)));
    assertTrue(s.offer(m(3)));
    assertTrue(s.offer(m(4)));
    assertFalse(s.offer(m(5)), "the fourth queued message is one too many");
    assertFalse(s.offer(m(6)), "a cut-off subscriber takes nothing more");
    writers.runAll();
    assertEquals(List.of(1L), sink.sent);
    assertEquals(1L, sink.cutAt);
    assertEquals(CutReason.TOO_SLOW, sink.reason);
  }

  @Test
  void aClosedConnectionTakesNothing() {
    ManualWriters writers = new ManualWriters();
    RecordingSink sink = new RecordingSink();
    Subscriber s = new Subscriber(sink, 3, writers, 0);
    sink.closed = true;
    assertFalse(s.offer(m(1)));
    writers.runAll();
    assertEquals(List.of(), sink.sent);
  }

  @Test
  void limitsAreChecked() {
    assertThrows(
        IllegalArgumentException.class, () -> new StreamLimits(0, Duration.ofSeconds(1), 10));
    assertThrows(
        IllegalArgumentException.class, () -> new StreamLimits(10, Duration.ofMillis(1), 10));
    assertThrows(
        IllegalArgumentException.class, () -> new StreamLimits(10, Duration.ofMinutes(2), 10));
    assertThrows(
        IllegalArgumentException.class, () -> new StreamLimits(10, Duration.ofSeconds(1), 0));
    Duration second = Duration.ofSeconds(1);
    assertThrows(
        IllegalArgumentException.class, () -> new StreamLimits(1, second, 1, 0, 1, 1, 1, 1));
    assertThrows(
        IllegalArgumentException.class, () -> new StreamLimits(1, second, 1, 5, 6, 1, 1, 1));
    assertThrows(
        IllegalArgumentException.class, () -> new StreamLimits(1, second, 1, 5, 1, 6, 1, 1));
    assertThrows(
        IllegalArgumentException.class, () -> new StreamLimits(1, second, 1, 5, 1, 1, 0, 1));
    assertThrows(
        IllegalArgumentException.class, () -> new StreamLimits(1, second, 1, 5, 1, 1, 1, 65));
    new StreamLimits(1, second, 1, 5, 5, 5, 1_024, 64);
    assertThrows(IllegalArgumentException.class, () -> new LiveMessage(0, "{}"));
    assertThrows(IllegalArgumentException.class, () -> new RoomBus.Announcement(5, 4));
  }
}
