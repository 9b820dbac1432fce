package dev.danmakuledger.server.kafka;

import dev.danmakuledger.server.metrics.SteadyRows;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The per-room lag gauges of the relay (docs/kafka.md, "Lag"): a row per room shown, tagged with
 * the room and its shard, registered once while the room is shown ({@link SteadyRows}).
 */
final class RoomLagGauges {
  private final SteadyRows records;
  private final SteadyRows millis;

  RoomLagGauges(MeterRegistry registry) {
    records =
        new SteadyRows(
            MultiGauge.builder("danmaku.kafka.relay.room.behind")
                .description("confirmed messages of the room not yet in the topic")
                .register(registry));
    millis =
        new SteadyRows(
            MultiGauge.builder("danmaku.kafka.relay.room.lag")
                .baseUnit("milliseconds")
                .description("how long the room has been behind")
                .register(registry));
  }

  /** Shows {@code rooms}, and no other room. */
  void show(List<RoomLag> rooms) {
    Map<Tags, Long> recordValues = new LinkedHashMap<>();
    Map<Tags, Long> millisValues = new LinkedHashMap<>();
    for (RoomLag l : rooms) {
      Tags tags = Tags.of("room", l.room(), "shard", Integer.toString(l.shard()));
      recordValues.put(tags, l.records());
      millisValues.put(tags, l.millis());
    }
    records.show(recordValues);
    millis.show(millisValues);
  }
}
