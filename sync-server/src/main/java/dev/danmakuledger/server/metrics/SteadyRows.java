package dev.danmakuledger.server.metrics;

import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The rows of a {@link MultiGauge} whose set changes (the busiest rooms, the rooms most behind): a
 * row is registered once while it is shown and reads a value updated in place. A row removed and
 * registered again with the same tags can be seen twice by a Prometheus scrape running meanwhile,
 * and the Prometheus client then fails the whole scrape with duplicate labels. Thread-safe.
 */
public final class SteadyRows {
  private final MultiGauge gauge;
  private Map<Tags, AtomicLong> shown = new HashMap<>();

  public SteadyRows(MultiGauge gauge) {
    this.gauge = Objects.requireNonNull(gauge, "gauge");
  }

  /** Shows a row per entry of {@code values} with its value, and no other row. */
  public synchronized void show(Map<Tags, Long> values) {
    Map<Tags, AtomicLong> next = new HashMap<>();
    List<MultiGauge.Row<?>> rows = new ArrayList<>(values.size());
    values.forEach(
        (tags, value) -> {
          AtomicLong held = shown.getOrDefault(tags, new AtomicLong());
          held.set(value);
          next.put(tags, held);
          rows.add(MultiGauge.Row.of(tags, held, AtomicLong::get));
        });
    // without overwrite a row shown before keeps its gauge, which reads the same holder
    gauge.register(rows, false);
    shown = next;
  }
}
