package dev.danmakuledger.server.events;

import dev.danmakuledger.server.storage.ConfirmedFeed;
import dev.danmakuledger.server.storage.ConfirmedFeed.Confirmed;
import dev.danmakuledger.server.storage.CursorRange;
import dev.danmakuledger.server.storage.MessageRow;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Fan-out of newly CONFIRMED messages per room to this instance's subscribers (docs/architecture.md
 * §2, §7: "broadcast CONFIRMED messages per room, never twice"). SQL is the authority: every
 * message a subscriber gets was committed before it is offered, in confirmation-cursor order. The
 * messages this instance's own commits confirmed are offered as the commit wrote them, when their
 * first cursor follows the last one offered; everything else is read from SQL by cursor ({@link
 * ConfirmedFeed}), triggered by an announcement on the bus from any instance, and at the latest by
 * the SQL poll of {@link StreamLimits#poll()}, so a lost announcement, a wiped stream or a Redis
 * outage delays messages but never loses one. Each subscriber has a bounded outbox ({@link
 * Subscriber}); a slow one is cut off with its resume point and never slows the publisher or other
 * subscribers.
 *
 * <p>Threads are fixed by {@link StreamLimits}, never by rooms or subscribers: the bus readers and
 * the SQL poll of {@link RoomFollowers}, {@value #FANOUT} fan-out threads that read SQL for rooms
 * that moved, and {@link StreamLimits#writers()} writers that run catch-ups and write to
 * connections. Admission ({@link #admit}) caps subscribers per instance, room and client address.
 */
public final class RoomHub implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(RoomHub.class);

  /** Threads reading SQL for rooms that moved and offering the rows to their subscribers. */
  static final int FANOUT = 4;

  /** How long an idle pool thread lives. */
  static final Duration IDLE = Duration.ofSeconds(30);

  /** The client address of subscriptions made inside this process. */
  static final String LOCAL = "local";

  private final ConfirmedFeed feed;
  private final RoomBus bus;
  private final StreamLimits limits;
  private final Function<MessageRow, String> render;
  private final Map<String, RoomChannel> channels = new ConcurrentHashMap<>();
  private final ThreadPoolExecutor writers;
  private final ThreadPoolExecutor fanout;
  private final StreamAdmission admission;
  private final Announcer announcer;
  private final List<Consumer<Map<String, Long>>> commitListeners = new CopyOnWriteArrayList<>();
  private RoomFollowers followers;
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
    this.writers = pool("room-writer-", limits.writers());
    this.fanout = pool("room-fanout-", FANOUT);
    this.admission = new StreamAdmission(limits);
    this.announcer = new Announcer(feed, bus, new LocalChannels());
  }

  /** This instance's channels, as the announcer offers them a commit or wakes them. */
  private final class LocalChannels implements Announcer.Local {
    @Override
    public void committed(String room, List<Confirmed> messages) {
      RoomChannel ch = channels.get(room);
      if (ch != null) {
        ch.committed(messages, fanout);
      }
    }

    @Override
    public void wake(String room, long last, boolean announced) {
      RoomChannel ch = channels.get(room);
      if (!announced && ch != null && ch.last() < last) {
        ch.wake();
      }
    }
  }

  /** A pool of at most {@code size} daemon threads that end when idle; its queue is unbounded. */
  private static ThreadPoolExecutor pool(String name, int size) {
    AtomicInteger n = new AtomicInteger();
    ThreadPoolExecutor p =
        new ThreadPoolExecutor(
            size,
            size,
            IDLE.toMillis(),
            TimeUnit.MILLISECONDS,
            new LinkedBlockingQueue<>(),
            r -> {
              Thread t = new Thread(r, name + n.incrementAndGet());
              t.setDaemon(true);
              return t;
            });
    p.allowCoreThreadTimeOut(true);
    return p;
  }

  /**
   * Admits one stream of {@code room} from client {@code address} under the limits of {@link
   * StreamLimits}; pass the ticket to {@link #subscribe(StreamTicket, long, long, Sink)}, or close
   * it if the stream is not opened after all.
   *
   * @throws StreamRefusedException beyond a limit
   */
  public StreamTicket admit(String room, String address) {
    return admission.admit(room, address);
  }

  /** Streams refused so far because of {@code why}. */
  public long refused(StreamRefusal why) {
    return admission.refused(why);
  }

  /**
   * Subscribes {@code sink} to the room of {@code ticket} from after {@code afterCursor} (and, for
   * the catch-up, only seqs above {@code afterSeq}); close the returned handle to stop, which also
   * closes the ticket. Returns at once: joining the room and the catch-up from SQL run on a writer
   * thread, then the subscriber gets live messages.
   */
  public AutoCloseable subscribe(StreamTicket ticket, long afterCursor, long afterSeq, Sink sink) {
    return open(ticket, () -> afterCursor, afterSeq, sink);
  }

  /**
   * Subscribes {@code sink} to the room of {@code ticket} from its first message with a seq above
   * {@code afterSeq}, as {@link #subscribe(StreamTicket, long, long, Sink)} does; where that is in
   * cursors is read on the writer thread too.
   */
  public AutoCloseable subscribeAfterSeq(StreamTicket ticket, long afterSeq, Sink sink) {
    return open(ticket, () -> feed.cursorBeforeSeq(ticket.room(), afterSeq), afterSeq, sink);
  }

  /** Subscribes {@code sink} to {@code room} as a local client under the same limits. */
  public AutoCloseable subscribe(String room, long afterCursor, long afterSeq, Sink sink) {
    return subscribe(admit(room, LOCAL), afterCursor, afterSeq, sink);
  }

  private AutoCloseable open(StreamTicket ticket, LongSupplier start, long afterSeq, Sink sink) {
    Subscription subscription = new Subscription(ticket, this::leave);
    try {
      writers.execute(
          new CatchUp(
              feed,
              render,
              ticket.room(),
              start,
              afterSeq,
              sink,
              this::join,
              subscription,
              this::newSubscriber));
    } catch (RuntimeException e) {
      subscription.close();
      throw e;
    }
    return subscription;
  }

  private Subscriber newSubscriber(Sink sink, long lastSent) {
    return new Subscriber(sink, limits.buffer(), writers, lastSent);
  }

  /**
   * Broadcasts the messages a committed transaction of this instance confirmed (rooms to messages
   * with their cursors, each room's in cursor order): this instance's subscribers are offered them
   * as they are, without reading them back from SQL, and every other instance is told their cursors
   * and reads them from SQL. Returns at once: both run on the hub's announcer thread. Never throws:
   * a failed announcement falls back to a local SQL read, and other instances catch up at their
   * next poll.
   */
  public void announce(Map<String, List<Confirmed>> committed) {
    announcer.announce(committed);
    if (!commitListeners.isEmpty()) {
      Map<String, Long> heads = new HashMap<>();
      committed.forEach((room, messages) -> heads.put(room, CursorRange.of(messages).last()));
      tellCommitted(heads);
    }
  }

  /**
   * Calls {@code listener} on the committing thread after every commit of this instance that
   * confirmed messages, with the rooms and the highest cursor the commit gave out in each, or 0
   * when the commit's cursors are not known here (a review decision); the Kafka relay learns the
   * rooms' heads from it (docs/kafka.md, "Lag"). It must return at once.
   */
  public void onCommitted(Consumer<Map<String, Long>> listener) {
    commitListeners.add(Objects.requireNonNull(listener, "listener"));
  }

  private void tellCommitted(Map<String, Long> heads) {
    for (Consumer<Map<String, Long>> r : commitListeners) {
      try {
        r.accept(heads);
      } catch (RuntimeException e) {
        log.warn("commit listener failed: {}", e.toString());
      }
    }
  }

  /**
   * Tells subscribers of {@code room}, on every instance, that these messages became CONFIRMED in a
   * committed transaction whose cursors the caller does not hold (a review decision): their cursors
   * are read from SQL on the announcer thread. Returns at once and never throws.
   */
  public void publish(String room, List<MessageRow> confirmed) {
    announcer.announce(room, confirmed);
    tellCommitted(Map.of(room, 0L));
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

  /** Rooms this instance follows: those with at least one subscriber. */
  public int followedRooms() {
    return channels.size();
  }

  private RoomChannel join(String room) {
    synchronized (this) {
      if (closed) {
        throw new IllegalStateException("room hub: got a subscription after close, want none");
      }
      RoomChannel ch = channels.get(room);
      if (ch != null) {
        ch.addMember();
        return ch;
      }
    }
    // A room's first subscriber reads its head outside the hub's lock, so that subscribers of other
    // rooms do not queue behind the read; two first subscribers may both read it, one channel wins.
    long head = feed.head(room);
    RoomChannel ch;
    boolean fresh = false;
    synchronized (this) {
      if (closed) {
        throw new IllegalStateException("room hub: got a subscription after close, want none");
      }
      ch = channels.get(room);
      if (ch == null) {
        ch = new RoomChannel(room, feed, render, head);
        channels.put(room, ch);
        fresh = true;
        if (bus != null && followers == null) {
          followers =
              new RoomFollowers(bus, feed, limits.poll(), channels::get, channels::values, fanout);
        }
      }
      ch.addMember();
    }
    if (fresh) {
      // what was announced between the head read and the channel's entry in the map
      ch.schedule(fanout);
    }
    return ch;
  }

  private void leave(RoomChannel ch, Subscriber sub) {
    if (sub != null) {
      ch.remove(sub);
    }
    synchronized (this) {
      if (ch.removeMember() == 0) {
        channels.remove(ch.room(), ch);
      }
    }
  }

  /** Stops following rooms and the hub's threads; open sinks are closed by their owners. */
  @Override
  public void close() {
    RoomFollowers f;
    synchronized (this) {
      closed = true;
      f = followers;
    }
    announcer.close();
    if (f != null) {
      f.close();
    }
    fanout.shutdownNow();
    writers.shutdownNow();
  }

  /** Confirmed rows as SSE data: the wire JSON. */
  static LiveMessage live(Confirmed c, Function<MessageRow, String> render) {
    return new LiveMessage(c.cursor(), render.apply(c.message()));
  }
}
