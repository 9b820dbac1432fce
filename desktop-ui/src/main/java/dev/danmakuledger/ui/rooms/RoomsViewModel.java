package dev.danmakuledger.ui.rooms;

import dev.danmakuledger.protocol.wire.RoomMessage;
import dev.danmakuledger.protocol.wire.RoomPage;
import dev.danmakuledger.protocol.wire.admin.AdminEvent;
import dev.danmakuledger.protocol.wire.admin.RelayLag;
import dev.danmakuledger.protocol.wire.admin.RoomList;
import dev.danmakuledger.protocol.wire.admin.RoomSummary;
import dev.danmakuledger.ui.client.ApiException;
import dev.danmakuledger.ui.client.EventStream;
import dev.danmakuledger.ui.client.ReconnectDelays;
import dev.danmakuledger.ui.live.ConsoleContext;
import dev.danmakuledger.ui.live.Format;
import dev.danmakuledger.ui.live.LiveFeed;
import dev.danmakuledger.ui.live.SingleFlight;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import javafx.beans.property.ReadOnlyBooleanProperty;
import javafx.beans.property.ReadOnlyBooleanWrapper;
import javafx.beans.property.ReadOnlyListProperty;
import javafx.beans.property.ReadOnlyListWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.collections.FXCollections;

/**
 * The rooms view (docs/console.md, "Rooms"): per-room sequence state from {@code GET /admin/rooms},
 * and a live tail of the selected room's CONFIRMED messages read in sequence order from {@code GET
 * /v1/rooms/{room}/messages?after=} and then followed on the room's message stream {@code GET
 * /v1/rooms/{room}/stream}; the tail is also advanced at every poll, whenever a device batch is
 * verified (DEVICE event) and whenever a MESSAGE or ROOM event names the room, so it stays current
 * while the stream reconnects. Sequence numbers only move forward, so no message shows twice. With
 * a Kafka relay, the rooms list also carries the relay's lag (docs/kafka.md, "Lag"): per room, and
 * summed up in {@link #relayStatus()}.
 */
public final class RoomsViewModel implements LiveFeed {
  /** How many messages the tail keeps. */
  public static final int TAIL = 200;

  static final String SNAPSHOT = "rooms";
  private static final int PAGE = 100;

  private final ConsoleContext context;
  private final ScheduledExecutorService streamer;
  private EventStream<RoomMessage> stream;
  private final SingleFlight roomsFlight = new SingleFlight(this::loadRooms);
  private final SingleFlight tailFlight = new SingleFlight(this::loadTail);
  private final ReadOnlyListWrapper<RoomSummary> rooms =
      new ReadOnlyListWrapper<>(FXCollections.observableArrayList());
  private final ReadOnlyListWrapper<RoomMessage> tail =
      new ReadOnlyListWrapper<>(FXCollections.observableArrayList());
  private final ReadOnlyStringWrapper selected = new ReadOnlyStringWrapper();
  private final ReadOnlyStringWrapper relayStatus = new ReadOnlyStringWrapper("");
  private final ReadOnlyBooleanWrapper relayTrouble = new ReadOnlyBooleanWrapper();
  private boolean loaded;
  private volatile long after = -1;
  private int generation;

  /** A rooms view-model that follows the selected room by polling and admin events only. */
  public RoomsViewModel(ConsoleContext context) {
    this(context, null);
  }

  /**
   * @param streamer runs the selected room's message stream ({@code /v1/rooms/{room}/stream}); a
   *     thread of its own, or null to follow by polling and admin events only
   */
  public RoomsViewModel(ConsoleContext context, ScheduledExecutorService streamer) {
    this.context = context;
    this.streamer = streamer;
  }

  public ReadOnlyListProperty<RoomSummary> rooms() {
    return rooms.getReadOnlyProperty();
  }

  /** The selected room's latest CONFIRMED messages, oldest first. */
  public ReadOnlyListProperty<RoomMessage> tail() {
    return tail.getReadOnlyProperty();
  }

  /**
   * The Kafka relay's lag in one line, such as "Kafka relay to danmaku.confirmed: 12 messages
   * behind, the longest for 340 ms; 4 of 4 shards reporting"; empty without a relay.
   */
  public ReadOnlyStringProperty relayStatus() {
    return relayStatus.getReadOnlyProperty();
  }

  /** True when the relay cannot reach Kafka or a shard has no running owner. */
  public ReadOnlyBooleanProperty relayTrouble() {
    return relayTrouble.getReadOnlyProperty();
  }

  /** The room whose tail is shown, or null. */
  public ReadOnlyStringProperty selected() {
    return selected.getReadOnlyProperty();
  }

  /** Shows the tail of {@code room}, starting after its latest {@value #PAGE} sequence numbers. */
  public void select(String room) {
    if (room == null || room.equals(selected.get())) {
      return;
    }
    selected.set(room);
    generation++;
    tail.clear();
    long high =
        rooms.stream()
            .filter(r -> r.room().equals(room))
            .mapToLong(RoomSummary::highSeq)
            .findFirst()
            .orElse(0);
    after = Math.max(0, high - PAGE);
    tailFlight.request();
    follow(room);
  }

  /** Stops following the selected room's stream. */
  public void close() {
    if (stream != null) {
      stream.close();
      stream = null;
    }
  }

  private void follow(String room) {
    close();
    if (streamer == null) {
      return;
    }
    int gen = generation;
    stream =
        context
            .client()
            .roomStream(
                room,
                () -> after,
                streamer,
                new ReconnectDelays(Duration.ofSeconds(1), Duration.ofSeconds(30)),
                new EventStream.Listener<>() {
                  @Override
                  public void connected() {}

                  @Override
                  public void event(RoomMessage m) {
                    context.async().ui(() -> streamed(gen, m));
                  }

                  @Override
                  public void disconnected(ApiException cause, Duration retryIn) {}
                });
    stream.start();
  }

  private void streamed(int gen, RoomMessage m) {
    if (gen != generation || m.seq() <= after) {
      return;
    }
    append(new RoomPage(List.of(m), m.seq()));
  }

  @Override
  public void restore() {
    context
        .async()
        .run(
            "room history",
            () -> context.history().load(SNAPSHOT, RoomList.class),
            last ->
                last.ifPresent(
                    s -> {
                      if (!loaded) {
                        showRooms(s.value());
                        context.connection().restored(s.at());
                      }
                    }),
            e -> {});
  }

  @Override
  public void refresh() {
    if (selected.get() != null) {
      tailFlight.request();
    }
    roomsFlight.request();
  }

  @Override
  public void onEvent(AdminEvent event) {
    boolean batch = event.type() == AdminEvent.Type.DEVICE;
    boolean room = event.type() == AdminEvent.Type.MESSAGE || event.type() == AdminEvent.Type.ROOM;
    if (!batch && !room) {
      return;
    }
    roomsFlight.request();
    String sel = selected.get();
    if (sel != null && (batch || sel.equals(event.room()))) {
      tailFlight.request();
    }
  }

  private void loadRooms(Runnable done) {
    context
        .async()
        .run(
            "the rooms",
            () -> {
              RoomList list = context.client().rooms();
              context.remember(SNAPSHOT, list);
              return list;
            },
            list -> {
              loaded = true;
              showRooms(list);
              context.connection().succeeded();
              done.run();
            },
            e -> {
              context.connection().failed(e);
              done.run();
            });
  }

  private void showRooms(RoomList list) {
    if (!rooms.equals(list.rooms())) {
      rooms.setAll(list.rooms());
    }
    RelayLag relay = list.relay();
    relayStatus.set(relay == null ? "" : relayStatus(relay));
    relayTrouble.set(relay != null && (!relay.reachable() || relay.reporting() < relay.shards()));
    if (selected.get() == null && !list.rooms().isEmpty()) {
      select(list.rooms().get(0).room());
    }
  }

  /** The relay's lag in one line (see {@link #relayStatus()}). */
  static String relayStatus(RelayLag r) {
    StringBuilder b = new StringBuilder("Kafka relay to ").append(r.topic()).append(": ");
    if (!r.reachable()) {
      b.append("cannot reach Kafka (the ledger keeps accepting); ");
    }
    b.append(r.behind()).append(r.behind() == 1 ? " message behind" : " messages behind");
    if (r.behind() > 0) {
      b.append(", the longest for ").append(lagTime(r.lagMaxMillis()));
    }
    b.append("; ")
        .append(r.reporting())
        .append(" of ")
        .append(r.shards())
        .append(" shards reporting");
    if (r.reporting() < r.shards()) {
      b.append(" (the others have no running owner: their rooms' lag is unknown)");
    }
    return b.toString();
  }

  /**
   * A room's relay lag for the table: "0" when caught up, "12 (340 ms)" when behind, "—" when
   * unknown (no relay, or the room's shard has no running owner).
   */
  public static String relayLag(RoomSummary.Relay r) {
    if (r == null) {
      return "—";
    }
    return r.behind() == 0 ? "0" : r.behind() + " (" + lagTime(r.lagMillis()) + ")";
  }

  private static String lagTime(long millis) {
    return millis < 1000 ? millis + " ms" : Format.age(millis / 1000);
  }

  private void loadTail(Runnable done) {
    String room = selected.get();
    long from = after;
    int gen = generation;
    if (room == null || from < 0) {
      done.run();
      return;
    }
    context
        .async()
        .run(
            "the messages of " + room,
            () -> context.client().roomMessages(room, from, PAGE),
            page -> {
              if (gen == generation) {
                append(page);
                context.connection().succeeded();
              }
              done.run();
            },
            e -> {
              context.connection().failed(e);
              done.run();
            });
  }

  private void append(RoomPage page) {
    List<RoomMessage> confirmed = new ArrayList<>();
    for (RoomMessage m : page.messages()) {
      if (m.status() == RoomMessage.Status.CONFIRMED && m.text() != null) {
        confirmed.add(m);
      }
    }
    if (page.next() > after) {
      after = page.next();
    }
    tail.addAll(confirmed);
    if (tail.size() > TAIL) {
      tail.remove(0, tail.size() - TAIL);
    }
    if (page.messages().size() >= PAGE) {
      tailFlight.request();
    }
  }
}
