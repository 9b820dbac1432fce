package dev.danmakuledger.ui.roomlog;

import dev.danmakuledger.protocol.wire.admin.AdminEvent;
import dev.danmakuledger.protocol.wire.admin.RoomSummary;
import dev.danmakuledger.ui.client.ApiException;
import dev.danmakuledger.ui.client.ServerKeys;
import dev.danmakuledger.ui.live.ConsoleContext;
import dev.danmakuledger.ui.live.LiveFeed;
import dev.danmakuledger.ui.live.SingleFlight;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javafx.beans.property.ReadOnlyListProperty;
import javafx.beans.property.ReadOnlyListWrapper;
import javafx.beans.property.ReadOnlyMapProperty;
import javafx.beans.property.ReadOnlyMapWrapper;
import javafx.collections.FXCollections;
import javafx.collections.ListChangeListener;

/**
 * The console's audit of every room's log (docs/console.md, "Rooms"): for each room the Rooms view
 * lists, {@link RoomLogAuditor} verifies the published checkpoint and its tiles and its consistency
 * with the last checkpoint verified under the same log key, which is kept in the local history. A
 * checkpoint that is not an extension of it is a SPLIT VIEW: recorded with both notes in the
 * history, shown on the room's row and as a CRITICAL alert, and kept across restarts; the trusted
 * checkpoint does not move past it. A server with another log key keeps logs of its own (see {@link
 * RoomLogMemory}). Audits run in the background, one at a time; results are applied on the UI
 * thread.
 */
public final class RoomLogsViewModel implements LiveFeed {
  static final String SNAPSHOT = "room-logs";

  private final ConsoleContext context;
  private final ReadOnlyListProperty<RoomSummary> rooms;
  private final RoomLogAuditor auditor;
  private final SingleFlight flight = new SingleFlight(this::auditAll);
  private final ReadOnlyMapWrapper<String, RoomLogState> states =
      new ReadOnlyMapWrapper<>(FXCollections.observableHashMap());
  private final ReadOnlyListWrapper<AdminEvent> alerts =
      new ReadOnlyListWrapper<>(FXCollections.observableArrayList());
  private RoomLogMemory memory = RoomLogMemory.empty();
  private boolean restored;

  /** The log key of the last audit's server, null before the first. */
  private String logKey;

  /**
   * @param rooms the rooms to audit (the Rooms view's list); every change triggers an audit
   */
  public RoomLogsViewModel(ConsoleContext context, ReadOnlyListProperty<RoomSummary> rooms) {
    this.context = context;
    this.rooms = rooms;
    this.auditor = new RoomLogAuditor(context.client());
    rooms.addListener((ListChangeListener<RoomSummary>) c -> flight.request());
  }

  /** Each audited room's state, by room. */
  public ReadOnlyMapProperty<String, RoomLogState> states() {
    return states.getReadOnlyProperty();
  }

  /** One CRITICAL alert per room with a recorded split view, newest first. */
  public ReadOnlyListProperty<AdminEvent> alerts() {
    return alerts.getReadOnlyProperty();
  }

  @Override
  public void restore() {
    context
        .async()
        .run(
            "room log history",
            () -> context.history().load(SNAPSHOT, RoomLogMemory.class),
            last -> {
              if (!restored) {
                last.ifPresent(s -> memory = s.value());
                restored = true;
                showSplits();
              }
            },
            e -> restored = true);
  }

  @Override
  public void refresh() {
    flight.request();
  }

  @Override
  public void onEvent(AdminEvent event) {
    if (event.type() == AdminEvent.Type.ROOM) {
      flight.request();
    }
  }

  /** One background audit of every room, against the memory it started from. */
  private record Round(
      RoomLogMemory base, String logKey, Map<String, RoomLogAuditor.Outcome> outcomes) {}

  private void auditAll(Runnable done) {
    List<String> names = rooms.stream().map(RoomSummary::room).toList();
    if (names.isEmpty()) {
      done.run();
      return;
    }
    // Before the history was read, trust nothing the server shows: read it first, in the
    // background, or a restart would forget the checkpoints it must check new ones against.
    boolean needHistory = !restored;
    RoomLogMemory known = memory;
    context
        .async()
        .run(
            "the room logs",
            () -> {
              RoomLogMemory base =
                  needHistory
                      ? context
                          .history()
                          .load(SNAPSHOT, RoomLogMemory.class)
                          .map(s -> s.value())
                          .orElse(known)
                      : known;
              ServerKeys served = context.client().serverKeys();
              RoomLogAuditor.Keys keys = keys(served);
              String key = served.logVerifierKey();
              Map<String, RoomLogAuditor.Outcome> out = new LinkedHashMap<>();
              for (String room : names) {
                out.put(room, auditor.audit(room, keys, base.trusted(key, room)));
              }
              return new Round(base, key, out);
            },
            round -> {
              if (!restored) {
                memory = round.base();
                restored = true;
              }
              logKey = round.logKey();
              apply(round.outcomes());
              done.run();
            },
            e -> {
              for (String room : names) {
                show(
                    room,
                    RoomLogAuditor.Outcome.failed(
                        RoomLogStatus.UNAVAILABLE, "server keys: " + e.plainMessage()));
              }
              done.run();
            });
  }

  private static RoomLogAuditor.Keys keys(ServerKeys served) throws ApiException {
    try {
      return RoomLogAuditor.Keys.of(served);
    } catch (IllegalArgumentException e) {
      throw new ApiException(
          ApiException.Kind.MALFORMED_RESPONSE,
          200,
          "The server's log key is not a valid verifier key.",
          "GET /v1/server/keys: " + e.getMessage(),
          e);
    }
  }

  private void apply(Map<String, RoomLogAuditor.Outcome> outcomes) {
    Instant now = context.clock().instant();
    Map<String, RoomTrust> trusted = new HashMap<>(memory.trusted());
    Map<String, SplitView> splits = new HashMap<>(memory.splits());
    boolean changed = false;
    for (Map.Entry<String, RoomLogAuditor.Outcome> e : outcomes.entrySet()) {
      String room = e.getKey();
      RoomLogAuditor.Outcome o = e.getValue();
      String id = RoomLogMemory.id(logKey, room);
      RoomTrust last = memory.trusted(logKey, room);
      if (o.status() == RoomLogStatus.VERIFIED
          && (last == null
              || last.logKey() == null
              || last.size() != o.size()
              || !last.rootHex().equals(o.rootHex()))) {
        trusted.remove(room); // an entry from before keys were kept now has its key
        trusted.put(id, new RoomTrust(o.size(), o.rootHex(), o.note(), now.toString(), logKey));
        changed = true;
      } else if (o.status() == RoomLogStatus.SPLIT_VIEW && memory.split(logKey, room) == null) {
        splits.put(
            id,
            new SplitView(room, last, o.size(), o.rootHex(), o.note(), now.toString(), o.detail()));
        changed = true;
      }
    }
    memory = new RoomLogMemory(trusted, splits);
    for (Map.Entry<String, RoomLogAuditor.Outcome> e : outcomes.entrySet()) {
      show(e.getKey(), e.getValue());
    }
    showSplits();
    if (changed) {
      RoomLogMemory toSave = memory;
      context
          .async()
          .run(
              "saving the room logs",
              () -> {
                context.remember(SNAPSHOT, toSave);
                return toSave;
              },
              saved -> {},
              failure -> {});
    }
  }

  private void show(String room, RoomLogAuditor.Outcome o) {
    RoomTrust t = memory.trusted(logKey, room);
    SplitView split = memory.split(logKey, room);
    long age = -1;
    Instant now = context.clock().instant();
    if (o.status() == RoomLogStatus.VERIFIED && o.cosignedAt() >= 0) {
      age = Math.max(0, now.getEpochSecond() - o.cosignedAt());
    } else if (t != null) {
      age = Math.max(0, Duration.between(Instant.parse(t.firstSeen()), now).toSeconds());
    }
    RoomLogStatus status = split != null ? RoomLogStatus.SPLIT_VIEW : o.status();
    String detail = split != null ? split.why() : o.detail();
    if (split == null && memory.trustedUnderOtherKey(logKey, room)) {
      detail +=
          "; this console also keeps a log of room "
              + room
              + " under another log key (another server, or this server's key was replaced)";
    }
    states.put(room, new RoomLogState(room, status, t == null ? -1 : t.size(), age, detail));
  }

  private void showSplits() {
    List<AdminEvent> next = new ArrayList<>();
    for (SplitView s : memory.splitsFor(logKey)) {
      next.add(
          new AdminEvent(
              AdminEvent.Type.ALERT,
              AdminEvent.Severity.CRITICAL,
              null,
              s.room(),
              "SPLIT VIEW of room "
                  + s.room()
                  + " (found by this console): "
                  + s.why()
                  + ". Keep the console history: it holds both signed checkpoints.",
              s.detectedAt(),
              Map.of(
                  "kind",
                  "split-view",
                  "trustedSize",
                  s.trusted().size(),
                  "seenSize",
                  s.seenSize())));
      if (!states.containsKey(s.room())) {
        states.put(
            s.room(),
            new RoomLogState(s.room(), RoomLogStatus.SPLIT_VIEW, s.trusted().size(), -1, s.why()));
      }
    }
    next.sort((a, b) -> b.at().compareTo(a.at()));
    if (!alerts.equals(next)) {
      alerts.setAll(next);
    }
  }
}
