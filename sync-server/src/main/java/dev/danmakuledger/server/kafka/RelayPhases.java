package dev.danmakuledger.server.kafka;

import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * Where the relay's time goes (docs/kafka.md, "Lag"): for each phase of its work, how often it ran
 * and for how long in total. Thread-safe; the shards add to it in parallel.
 */
final class RelayPhases {
  /** A phase of the relay's work. */
  enum Phase {
    /** Reading every room's head from SQL (the periodic full read). */
    HEADS("heads"),
    /** Reading a transaction's messages from SQL. */
    READ("read"),
    /** Turning them into records (the public JSON and the headers). */
    ENCODE("encode"),
    /** Beginning the transaction and handing the records to the producer. */
    SEND("send"),
    /** Committing the transaction: the records acknowledged, then EndTxn. */
    COMMIT("commit"),
    /** Opening a shard: fencing and reading its positions back. */
    OPEN("open");

    final String tag;

    Phase(String tag) {
      this.tag = tag;
    }
  }

  private final LongAdder[] counts = new LongAdder[Phase.values().length];
  private final LongAdder[] nanos = new LongAdder[Phase.values().length];

  RelayPhases() {
    for (int i = 0; i < counts.length; i++) {
      counts[i] = new LongAdder();
      nanos[i] = new LongAdder();
    }
  }

  /** Adds one run of {@code phase} that started at {@code startNanos} ({@link System#nanoTime}). */
  void ran(Phase phase, long startNanos) {
    add(phase, 1, System.nanoTime() - startNanos);
  }

  /** Adds {@code runs} runs of {@code phase} that took {@code tookNanos} together. */
  void add(Phase phase, long runs, long tookNanos) {
    counts[phase.ordinal()].add(runs);
    nanos[phase.ordinal()].add(tookNanos);
  }

  long count(Phase phase) {
    return counts[phase.ordinal()].sum();
  }

  long nanos(Phase phase) {
    return nanos[phase.ordinal()].sum();
  }

  /** Registers {@code danmaku.kafka.relay.phase} with one timer per phase in {@code registry}. */
  void register(MeterRegistry registry) {
    for (Phase p : Phase.values()) {
      FunctionTimer.builder(
              "danmaku.kafka.relay.phase",
              this,
              r -> r.count(p),
              r -> r.nanos(p),
              TimeUnit.NANOSECONDS)
          .tag("phase", p.tag)
          .description("time the relay spent in each phase of its work")
          .register(registry);
    }
  }
}
