package dev.danmakuledger.server.kafka;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The per-room lag gauges of the relay (docs/kafka.md, "Lag"): a row per room shown, tagged with
 * the room and its shard. A room's row is registered once while the room is shown and reads values
 * this class updates: a row removed and registered again with the same tags can be seen twice by a
 * Prometheus scrape running meanwhile, which then fails as a whole (duplicate labels). Not
 * thread-safe; the relay thread alone calls {@link #show}.
 */
final class RoomLagGauges {
  /** The values one room's rows read. */
  private record Shown(AtomicLong records, AtomicLong millis) {}

  private final MultiGauge records;
  private final MultiGauge millis;
  private Map<Tags, Shown> shown = new HashMap<>();

  RoomLagGauges(MeterRegistry registry) {
    records =
        MultiGauge.builder("danmaku.kafka.relay.room.behind")
            .description("confirmed messages of the room not yet in the topic")
            .register(registry);
    millis =
        MultiGauge.builder("danmaku.kafka.relay.room.lag")
            .baseUnit("milliseconds")
            .description("how long the room has been behind")
            .register(registry);
  }

  /** Shows {@code rooms}, and no other room. */
  void show(List<RoomLag> rooms) {
    Map<Tags, Shown> next = new HashMap<>();
    List<MultiGauge.Row<?>> recordRows = new ArrayList<>();
    List<MultiGauge.Row<?>> millisRows = new ArrayList<>();
    for (RoomLag l : rooms) {
      Tags tags = Tags.of("room", l.room(), "shard", Integer.toString(l.shard()));
      Shown s = shown.get(tags);
      if (s == null) {
        s = new Shown(new AtomicLong(), new AtomicLong());
      }
      s.records().set(l.records());
      s.millis().set(l.millis());
      next.put(tags, s);
      recordRows.add(MultiGauge.Row.of(tags, s.records(), AtomicLong::get));
      millisRows.add(MultiGauge.Row.of(tags, s.millis(), AtomicLong::get));
    }
    // without overwrite a row shown before keeps its gauge, which reads the same holder
    records.register(recordRows, false);
    millis.register(millisRows, false);
    shown = next;
  }
}
