package dev.danmakuledger.server.ingest;

import dev.danmakuledger.server.ingest.BatchAssembly.RoundWrites;
import dev.danmakuledger.server.ingest.TickSequencer.Assembled;
import dev.danmakuledger.server.ingest.TickSequencer.Committed;
import dev.danmakuledger.server.ingest.TickSequencer.ReadyTick;
import dev.danmakuledger.server.ingest.TickSequencer.Waiting;
import dev.danmakuledger.server.storage.MessageRow;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * A tick being admitted and assembled on the sequencer thread (docs/architecture.md §5, "Ticks");
 * it grows while the committer is busy. Touched by the sequencer thread only.
 */
final class FormingTick {
  final List<Waiting> waiting = new ArrayList<>();
  final List<Assembled> together = new ArrayList<>();
  final List<Assembled> alone = new ArrayList<>();
  final Map<String, MessageRow> known = new HashMap<>();

  /** The numbers the batches that commit together write ({@link #claim}). */
  private final Set<RoomNumber> claimedNumbers = new HashSet<>();

  /** The keys the batches that commit together write ({@link #claim}). */
  private final Set<String> claimedKeys = new HashSet<>();

  /**
   * The devices of this tick, each with the reply of its last batch in it: a batch chained behind
   * that one may join.
   */
  final Map<String, CompletableFuture<Committed>> last = new HashMap<>();

  /** Devices with a batch that commits alone: their later batches of the tick follow it. */
  final Set<String> aloneDevices = new HashSet<>();

  /**
   * The messages each device's batches that commit together plan to store: a retry of one by the
   * device's later batch of the tick is planned as its duplicate.
   */
  final Map<String, PlannedRows.Builder> plannedBy = new HashMap<>();

  long records;

  /** When the oldest batch of the tick was submitted ({@link System#nanoTime}). */
  long oldest = Long.MAX_VALUE;

  /** A number of a room. */
  private record RoomNumber(String room, long seq) {}

  /** The tick as it stands, numbered {@code number}, for the committer. */
  ReadyTick ready(long number) {
    return new ReadyTick(
        number,
        List.copyOf(waiting),
        List.copyOf(together),
        List.copyOf(alone),
        Collections.unmodifiableMap(new HashMap<>(known)));
  }

  /**
   * Claims the keys and numbers {@code plan} writes unless an earlier plan of this tick holds one
   * of them (then the plan commits alone, after the tick, and its collision is resolved there).
   */
  boolean claim(RoundWrites plan) {
    List<RoomNumber> numbers = new ArrayList<>(plan.messages().size());
    List<String> keys = new ArrayList<>(plan.messages().size());
    for (MessageRow m : plan.messages()) {
      numbers.add(new RoomNumber(m.room(), m.seq()));
      if (m.idempotencyKey() != null) {
        keys.add(m.idempotencyKey());
      }
    }
    for (RoomNumber n : numbers) {
      if (claimedNumbers.contains(n)) {
        return false;
      }
    }
    for (String k : keys) {
      if (claimedKeys.contains(k)) {
        return false;
      }
    }
    claimedNumbers.addAll(numbers);
    claimedKeys.addAll(keys);
    return true;
  }
}
