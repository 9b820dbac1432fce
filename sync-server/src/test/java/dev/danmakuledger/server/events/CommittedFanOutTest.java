package dev.danmakuledger.server.events;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.danmakuledger.server.storage.ConfirmedFeed;
import dev.danmakuledger.server.storage.ConfirmedFeed.Confirmed;
import dev.danmakuledger.server.storage.Database;
import dev.danmakuledger.server.storage.MessageRow;
import dev.danmakuledger.server.storage.MessageStatus;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * This instance's commits reach its subscribers as the commit wrote them (docs/sync-server.md,
 * "Room streams"): offered without reading SQL back while each cursor follows the last one offered,
 * never out of order, never twice. The database here is empty, so whatever a subscriber gets came
 * from the commit and nothing from a read of SQL.
 */
final class CommittedFanOutTest {
  /** Records the cursors sent to one connection. */
  static final class Cursors implements Sink {
    final List<Long> sent = new CopyOnWriteArrayList<>();
    final List<String> data = new CopyOnWriteArrayList<>();

    @Override
    public void send(LiveMessage m) {
      sent.add(m.cursor());
      data.add(m.data());
    }

    @Override
    public void cutOff(long lastCursor, CutReason reason) {}

    @Override
    public void close() {}

    @Override
    public boolean closed() {
      return false;
    }
  }

  @TempDir Path dir;
  Database db;
  final List<Runnable> reads = new ArrayList<>();
  final Executor pool = reads::add;

  @BeforeEach
  void open() {
    db = Database.open(Database.h2Url(dir), null, null);
  }

  @AfterEach
  void close() {
    db.close();
  }

  static Confirmed confirmed(long cursor, long seq) {
    MessageRow m =
        new MessageRow(
            "r",
            seq,
            seq,
            "d:u:1732950000000:" + seq,
            "h",
            "d",
            seq - 1,
            "u",
            "text " + seq,
            null,
            1,
            0,
            25,
            0,
            MessageStatus.CONFIRMED,
            null,
            0);
    return new Confirmed(cursor, m);
  }

  static List<Confirmed> run(long firstCursor, long lastCursor) {
    List<Confirmed> out = new ArrayList<>();
    for (long c = firstCursor; c <= lastCursor; c++) {
      out.add(confirmed(c, c + 100));
    }
    return out;
  }

  RoomChannel channelWith(Cursors sink, long head) {
    RoomChannel ch = new RoomChannel("r", new ConfirmedFeed(db), WireRender.INSTANCE, head);
    ch.attach(new Subscriber(sink, 100, Runnable::run, head), head, 0);
    return ch;
  }

  @Test
  void aCommitFollowingTheLastCursorIsOfferedAsWrittenWithoutReadingSql() {
    Cursors sink = new Cursors();
    RoomChannel ch = channelWith(sink, 0);

    ch.committed(run(1, 3), pool);
    ch.committed(run(4, 4), pool);

    assertEquals(List.of(1L, 2L, 3L, 4L), sink.sent);
    assertEquals(4, ch.last());
    assertEquals(0, reads.size(), "no read of SQL scheduled");
    assertEquals(WireRender.INSTANCE.apply(confirmed(2, 102).message()), sink.data.get(1));
  }

  @Test
  void aCommitAfterAGapIsLeftToAReadOfSqlAndNothingIsOfferedOutOfOrder() {
    Cursors sink = new Cursors();
    RoomChannel ch = channelWith(sink, 0);

    ch.committed(run(3, 4), pool);

    assertEquals(List.of(), sink.sent, "cursors 1..2 are missing here: 3..4 must wait");
    assertEquals(0, ch.last());
    assertEquals(1, reads.size(), "a read of SQL scheduled instead");

    ch.committed(run(1, 2), pool);
    ch.committed(run(3, 4), pool);
    assertEquals(List.of(1L, 2L, 3L, 4L), sink.sent);
    reads.get(0).run();
    assertEquals(List.of(1L, 2L, 3L, 4L), sink.sent, "the read finds nothing new");
  }

  @Test
  void whatWasOfferedAlreadyIsSkippedAndTheRestOfTheCommitOffered() {
    Cursors sink = new Cursors();
    RoomChannel ch = channelWith(sink, 2);

    ch.committed(run(1, 5), pool);
    ch.committed(run(4, 5), pool);
    ch.committed(run(2, 3), pool);

    assertEquals(List.of(3L, 4L, 5L), sink.sent);
    assertEquals(5, ch.last());
    assertEquals(0, reads.size());
  }
}
