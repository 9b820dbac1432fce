package dev.danmakuledger.server.events;

import dev.danmakuledger.server.storage.ConfirmedFeed;
import dev.danmakuledger.server.storage.ConfirmedFeed.Confirmed;
import dev.danmakuledger.server.storage.MessageRow;
import dev.danmakuledger.server.storage.StorageUnavailableException;
import java.util.List;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A new subscriber's opening, on a writer thread, so that no request thread waits on SQL for a
 * stream: reads where the stream starts, joins the room's channel (whose first subscriber reads the
 * room's head), sends what SQL holds after the resume point at the connection's own pace, page by
 * page, until it is close to the channel's last cursor, then attaches to the channel for live
 * messages. A catch-up of any length never fills a buffer.
 */
final class CatchUp implements Runnable {
  private static final Logger log = LoggerFactory.getLogger(CatchUp.class);
  private static final int CLOSING_ROUNDS = 3;

  private final ConfirmedFeed feed;
  private final Function<MessageRow, String> render;
  private final String room;
  private final LongSupplier start;
  private final long afterSeq;
  private final Sink sink;
  private final Function<String, RoomChannel> join;
  private final Subscription subscription;
  private final BiFunction<Sink, Long, Subscriber> subscribers;

  /**
   * @param start the cursor after which the stream starts, read on the writer thread
   * @param join joins the room's channel as one more member (may read SQL)
   * @param subscription the stream's hold, told what was joined and attached
   */
  CatchUp(
      ConfirmedFeed feed,
      Function<MessageRow, String> render,
      String room,
      LongSupplier start,
      long afterSeq,
      Sink sink,
      Function<String, RoomChannel> join,
      Subscription subscription,
      BiFunction<Sink, Long, Subscriber> subscribers) {
    this.feed = feed;
    this.render = render;
    this.room = room;
    this.start = start;
    this.afterSeq = afterSeq;
    this.sink = sink;
    this.join = join;
    this.subscription = subscription;
    this.subscribers = subscribers;
  }

  @Override
  public void run() {
    if (sink.closed()) {
      return;
    }
    long cursor;
    RoomChannel channel;
    try {
      cursor = start.getAsLong();
      channel = join.apply(room);
    } catch (StorageUnavailableException e) {
      log.warn(
          "room stream {}: cannot read where it starts, closing so the client reconnects: {}",
          room,
          e.getMessage());
      sink.close();
      return;
    } catch (RuntimeException e) {
      log.debug("room stream {}: not opened: {}", room, e.toString());
      sink.close();
      return;
    }
    if (!subscription.joined(channel)) {
      return;
    }
    try {
      int rounds = 0;
      while (!sink.closed()) {
        List<Confirmed> page = feed.after(room, cursor, afterSeq, RoomChannel.PAGE);
        for (Confirmed c : page) {
          sink.send(RoomHub.live(c, render));
          cursor = c.cursor();
        }
        if (page.size() < RoomChannel.PAGE
            && (cursor >= channel.last() || ++rounds >= CLOSING_ROUNDS)) {
          break;
        }
      }
      if (sink.closed()) {
        return;
      }
      Subscriber s = subscribers.apply(sink, cursor);
      channel.attach(s, cursor, afterSeq);
      if (!subscription.attached(s)) {
        channel.remove(s);
      }
    } catch (StorageUnavailableException e) {
      log.warn("room {}: catch-up cannot read SQL: {}", room, e.getMessage());
      sink.cutOff(cursor, CutReason.STORAGE_UNAVAILABLE);
    } catch (RuntimeException e) {
      log.debug("room {}: subscriber gone during catch-up: {}", room, e.toString());
    }
  }
}
