package dev.danmakuledger.bench.chaos;

import dev.danmakuledger.bench.ingest.FreshDatabase;
import dev.danmakuledger.server.kafka.TopicCheck;
import dev.danmakuledger.server.storage.ConfirmedFeed;
import dev.danmakuledger.server.storage.Database;
import java.io.PrintStream;
import java.time.Duration;

/**
 * The Kafka part of a chaos run's verdict (docs/kafka.md, "Chaos run"): once the faults stopped and
 * every agent synced, the reference consumer ({@link TopicCheck}) reads the topic with {@code
 * read_committed} until it holds every CONFIRMED row of the ledger; per room, the committed records
 * must be the CONFIRMED rows in cursor order, none twice, none missing.
 */
final class KafkaVerdict {
  /** How long the relay may take to catch up after the faults stopped. */
  static final Duration CATCH_UP = Duration.ofMinutes(3);

  private KafkaVerdict() {}

  /**
   * Checks the topic against {@code db} until it is complete, a check fails (a duplicate, a record
   * out of order, unexpected or missing stays so), or {@link #CATCH_UP} passed; the last report.
   */
  static TopicCheck.Report settle(ChaosKafka kafka, FreshDatabase db, PrintStream log)
      throws InterruptedException {
    long deadline = System.nanoTime() + CATCH_UP.toNanos();
    try (Database sql = Database.open(db.url(), null, null)) {
      ConfirmedFeed feed = new ConfirmedFeed(sql);
      while (true) {
        TopicCheck.Report r = kafka.check(feed);
        if (!r.ok() || r.complete() || System.nanoTime() > deadline) {
          log.println("chaos: Kafka topic: " + r.summary());
          return r;
        }
        Thread.sleep(2_000);
      }
    }
  }

  static ChaosHarness.Check check(TopicCheck.Report r) {
    return new ChaosHarness.Check(
        "Kafka topic (read_committed) == CONFIRMED rows per room in cursor order, each once",
        r.complete(),
        r.summary());
  }
}
