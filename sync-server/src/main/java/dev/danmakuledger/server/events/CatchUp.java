package dev.danmakuledger.server.events;

import dev.danmakuledger.server.storage.ConfirmedFeed;
import dev.danmakuledger.server.storage.ConfirmedFeed.Confirmed;
import dev.danmakuledger.server.storage.MessageRow;
import dev.danmakuledger.server.storage.StorageUnavailableException;
import java.util.List;
import java.util.function.BiFunction;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A new subscriber's catch-up, on a writer thread: sends what SQL holds after the resume point at
 * the connection's own pace, page by page, until it is close to the channel's last cursor, then
 * attaches to the channel for live messages. A catch-up of any length never fills a buffer.
 */
final class CatchUp implements Runnable {
  private static final Logger log = LoggerFactory.getLogger(CatchUp.class);
  private static final int CLOSING_ROUNDS = 3;

  private final ConfirmedFeed feed;
  private final Function<MessageRow, String> render;
  private final RoomChannel channel;
  private final Sink sink;
  private final long afterCursor;
  private final long afterSeq;
  private final BiFunction<Sink, Long, Subscriber> subscribers;
  private volatile Subscriber subscriber;

  CatchUp(
      ConfirmedFeed feed,
      Function<MessageRow, String> render,
      RoomChannel channel,
      Sink sink,
      long afterCursor,
      long afterSeq,
      BiFunction<Sink, Long, Subscriber> subscribers) {
    this.feed = feed;
    this.render = render;
    this.channel = channel;
    this.sink = sink;
    this.afterCursor = afterCursor;
    this.afterSeq = afterSeq;
    this.subscribers = subscribers;
  }

  /** The live subscriber once the catch-up is done, else null. */
  Subscriber subscriber() {
    return subscriber;
  }

  @Override
  public void run() {
    long cursor = afterCursor;
    try {
      int rounds = 0;
      while (!sink.closed()) {
        List<Confirmed> page = feed.after(channel.room(), cursor, afterSeq, RoomChannel.PAGE);
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
      subscriber = s;
      channel.attach(s, cursor, afterSeq);
    } catch (StorageUnavailableException e) {
      log.warn("room {}: catch-up cannot read SQL: {}", channel.room(), e.getMessage());
      sink.cutOff(cursor, CutReason.STORAGE_UNAVAILABLE);
    } catch (RuntimeException e) {
      log.debug("room {}: subscriber gone during catch-up: {}", channel.room(), e.toString());
    }
  }
}
