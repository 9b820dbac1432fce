package dev.danmakuledger.server.ingest;

import dev.danmakuledger.server.ingest.BatchAssembly.RoundWrites;
import dev.danmakuledger.server.ingest.RoomAdmission.Slot;
import dev.danmakuledger.server.storage.MessageRow;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;

/**
 * The messages the tick being committed plans to store, by key (docs/architecture.md §5, "Ticks"):
 * what the tick formed meanwhile counts on for a key Redis remembers and SQL does not hold yet, a
 * retry of a message of the committing tick. A plan that counted on one stands only if that tick
 * stored the row as planned. Built and read on the sequencer thread.
 */
final class PlannedRows {
  static final PlannedRows NONE = new PlannedRows(Map.of());

  /**
   * A message a tick plans to store, the plan it is part of, and the reply of the batch planning
   * it.
   */
  record Planned(
      MessageRow row, RoundWrites plan, CompletableFuture<TickSequencer.Committed> owner) {
    /**
     * Whether the owner's tick stored the row as planned: at once when the owner committed the plan
     * it was handed over with, by a look through what it stored when it had to plan again (a batch
     * that committed alone).
     */
    boolean stored() {
      if (!owner.isDone() || owner.isCompletedExceptionally()) {
        return false;
      }
      RoundWrites committed = owner.join().plan();
      if (committed == plan) {
        return true;
      }
      for (MessageRow m : committed.messages()) {
        if (row.idempotencyKey().equals(m.idempotencyKey())
            && row.room().equals(m.room())
            && row.seq() == m.seq()
            && Objects.equals(row.messageId(), m.messageId())) {
          return true;
        }
      }
      return false;
    }
  }

  private final Map<String, Planned> byKey;

  private PlannedRows(Map<String, Planned> byKey) {
    this.byKey = byKey;
  }

  /** Collects the messages of a tick's plans. */
  static final class Builder {
    private final Map<String, Planned> byKey = new HashMap<>();

    /** Adds the messages {@code plan} stores, owned by the batch whose reply is {@code owner}. */
    Builder add(RoundWrites plan, CompletableFuture<TickSequencer.Committed> owner) {
      for (MessageRow m : plan.messages()) {
        if (m.idempotencyKey() != null) {
          byKey.put(m.idempotencyKey(), new Planned(m, plan, owner));
        }
      }
      return this;
    }

    PlannedRows build() {
      return new PlannedRows(byKey);
    }
  }

  /**
   * The planned rows for the keys of {@code slots} that Redis remembered and SQL did not hold
   * ({@code known}).
   */
  List<Planned> remembered(Map<String, List<Slot>> slots, Map<String, MessageRow> known) {
    if (byKey.isEmpty()) {
      return List.of();
    }
    List<Planned> out = new ArrayList<>();
    for (List<Slot> room : slots.values()) {
      for (Slot s : room) {
        if (!s.redisNew() && !known.containsKey(s.key())) {
          Planned p = byKey.get(s.key());
          if (p != null) {
            out.add(p);
          }
        }
      }
    }
    return out;
  }

  /** {@code known} with {@code planned} added: what a plan counts on. */
  static Map<String, MessageRow> with(Map<String, MessageRow> known, List<Planned> planned) {
    if (planned.isEmpty()) {
      return known;
    }
    Map<String, MessageRow> view = new HashMap<>(known);
    for (Planned p : planned) {
      view.put(p.row().idempotencyKey(), p.row());
    }
    return view;
  }
}
