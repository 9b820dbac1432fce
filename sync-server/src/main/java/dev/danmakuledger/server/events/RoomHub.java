package dev.danmakuledger.server.events;

import dev.danmakuledger.server.storage.ConfirmedFeed;
import dev.danmakuledger.server.storage.ConfirmedFeed.Confirmed;
import dev.danmakuledger.server.storage.CursorRange;
import dev.danmakuledger.server.storage.MessageRow;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Fan-out of newly CONFIRMED messages per room to this instance's subscribers (docs/architecture.md
 * §2, §7: "broadcast CONFIRMED messages per room, never twice"). SQL is the authority: every
 * message a subscriber gets is read from SQL by confirmation cursor ({@link ConfirmedFeed}), after
 * the commit that confirmed it. What triggers a read is a local publish (no {@link RoomBus}) or an
 * announcement on the bus from any instance, and at the latest the SQL poll of {@link
 * StreamLimits#poll()}, so a lost announcement, a wiped stream or a Redis outage delays messages
 * but never loses one. Each subscriber has a bounded outbox ({@link Subscriber}); a slow one is cut
 * off with its resume point and never slows the publisher or other subscribers.
 */
public final class RoomHub implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(RoomHub.class);

  private final ConfirmedFeed feed;
  private final RoomBus bus;
  private final StreamLimits limits;
  private final Function<MessageRow, String> render;
  private final Map<String, RoomChannel> channels = new HashMap<>();
  private final ExecutorService writers;
  private final Announcer announcer;
  private boolean closed;

  /** A hub of one instance: publishes wake its own subscribers only. */
  public RoomHub(ConfirmedFeed feed) {
    this(feed, null, StreamLimits.DEFAULTS, WireRender.INSTANCE);
  }

  /** A hub on {@code bus} whose subscribers get messages in their wire form. */
  public RoomHub(ConfirmedFeed feed, RoomBus bus, StreamLimits limits) {
    this(feed, bus, limits, WireRender.INSTANCE);
  }

  /**
   * A hub that announces its commits on {@code bus} (null: this instance only) and follows the
   * announcements of the rooms it has subscribers for; {@code render} gives a message's SSE data.
   */
  public RoomHub(
      ConfirmedFeed feed, RoomBus bus, StreamLimits limits, Function<MessageRow, String> render) {
    this.feed = Objects.requireNonNull(feed, "feed");
    this.bus = bus;
    this.limits = Objects.requireNonNull(limits, "limits");
    this.render = Objects.requireNonNull(render, "render");
    AtomicInteger n = new AtomicInteger();
    this.writers =
        Executors.newCachedThreadPool(
            r -> {
              Thread t = new Thread(r, "room-writer-" + n.incrementAndGet());
              t.setDaemon(true);
              return t;
            });
    this.announcer = new Announcer(feed, bus, this::wake);
  }

  /**
   * Subscribes {@code sink} to {@code room} from after {@code afterCursor} (and, for the catch-up,
   * only seqs above {@code afterSeq}); close the returned handle to stop. The catch-up from SQL
   * runs on a writer thread; then the subscriber gets live messages.
   */
  public AutoCloseable subscribe(String room, long afterCursor, long afterSeq, Sink sink) {
    RoomChannel ch = join(room);
    CatchUp catchUp =
        new CatchUp(feed, render, ch, sink, afterCursor, afterSeq, this::newSubscriber);
    try {
      writers.execute(catchUp);
    } catch (RuntimeException e) {
      leave(ch, null);
      throw e;
    }
    return () -> leave(ch, catchUp.subscriber());
  }

  private Subscriber newSubscriber(Sink sink, long lastSent) {
    return new Subscriber(sink, limits.buffer(), writers, lastSent);
  }

  /**
   * Tells subscribers, on every instance, the confirmation cursors a committed transaction gave out
   * (rooms to ranges). Returns at once: the announcement runs on the hub's announcer thread. Never
   * throws: a failed announcement falls back to a local SQL read, and other instances catch up at
   * their next poll.
   */
  public void announce(Map<String, CursorRange> committed) {
    announcer.announce(committed);
  }

  /**
   * Tells subscribers of {@code room}, on every instance, that these messages became CONFIRMED in a
   * committed transaction whose cursors the caller does not hold (a review decision): their cursors
   * are read from SQL on the announcer thread. Returns at once and never throws.
   */
  public void publish(String room, List<MessageRow> confirmed) {
    announcer.announce(room, confirmed);
  }

  /** Wakes this instance's subscribers of {@code room} unless the bus carried the announcement. */
  private void wake(String room, boolean announced) {
    if (announced) {
      return;
    }
    RoomChannel ch;
    synchronized (this) {
      ch = channels.get(room);
    }
    if (ch != null) {
      ch.wake();
    }
  }

  /** Number of live subscribers of a room on this instance. */
  public synchronized int subscribers(String room) {
    RoomChannel ch = channels.get(room);
    return ch == null ? 0 : ch.members();
  }

  /** Number of subscribers of all rooms on this instance. */
  public synchronized int subscribers() {
    int n = 0;
    for (RoomChannel ch : channels.values()) {
      n += ch.members();
    }
    return n;
  }

  private synchronized RoomChannel join(String room) {
    if (closed) {
      throw new IllegalStateException("room hub: got a subscription after close, want none");
    }
    RoomChannel ch = channels.get(room);
    if (ch == null) {
      ch = new RoomChannel(room, feed, render, feed.head(room));
      channels.put(room, ch);
      if (bus != null) {
        ch.follow(bus, limits.poll(), this::retire);
      }
    }
    ch.addMember();
    return ch;
  }

  private void leave(RoomChannel ch, Subscriber sub) {
    if (sub != null) {
      ch.remove(sub);
    }
    synchronized (this) {
      if (ch.removeMember() == 0 && bus == null) {
        channels.remove(ch.room(), ch);
      }
    }
  }

  /** Called by a follower with no members left: true if the channel is retired. */
  private synchronized boolean retire(RoomChannel ch) {
    if (ch.members() > 0 && !closed) {
      return false;
    }
    channels.remove(ch.room(), ch);
    return true;
  }

  /** Stops following rooms and the writer threads; open sinks are closed by their owners. */
  @Override
  public void close() {
    List<RoomChannel> all;
    synchronized (this) {
      closed = true;
      all = new ArrayList<>(channels.values());
    }
    announcer.close();
    for (RoomChannel ch : all) {
      ch.stop();
    }
    writers.shutdownNow();
  }

  /** Confirmed rows as SSE data: the wire JSON. */
  static LiveMessage live(Confirmed c, Function<MessageRow, String> render) {
    return new LiveMessage(c.cursor(), render.apply(c.message()));
  }
}
