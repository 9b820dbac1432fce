package dev.danmakuledger.bench.cli;

import dev.danmakuledger.server.kafka.KafkaRelayConfig;
import dev.danmakuledger.server.kafka.TopicCheck;
import dev.danmakuledger.server.storage.ConfirmedFeed;
import dev.danmakuledger.server.storage.Database;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code bin/bench kafka-check}: the reference consumer of docs/kafka.md against a ledger. */
@Command(
    name = "kafka-check",
    mixinStandardHelpOptions = true,
    description = {
      "Reads a topic of the Kafka relay with read_committed and compares it, room by room, with"
          + " the CONFIRMED rows of the ledger's database in cursor order: no duplicate, nothing"
          + " out of order, nothing unexpected, nothing missing; rows not relayed yet are counted"
          + " as behind. Exit 0 when complete (or, with --allow-behind, when only behind), 1"
          + " otherwise (docs/kafka.md, Checking a topic)."
    })
final class KafkaCheckCommand implements Callable<Integer> {
  @Spec CommandLine.Model.CommandSpec spec;

  @Option(names = "--kafka", required = true, paramLabel = "BOOTSTRAP", description = "brokers")
  String kafka;

  @Option(
      names = "--topic",
      defaultValue = KafkaRelayConfig.DEFAULT_TOPIC,
      description = "the relay's topic (default danmaku.confirmed)")
  String topic;

  @Option(names = "--jdbc", required = true, description = "the ledger's JDBC URL")
  String jdbc;

  @Option(names = "--jdbc-user", description = "JDBC user")
  String jdbcUser;

  @Option(names = "--jdbc-password-file", description = "file holding the JDBC password")
  Path jdbcPasswordFile;

  @Option(names = "--allow-behind", description = "pass when rows are only not relayed yet")
  boolean allowBehind;

  @Override
  public Integer call() throws Exception {
    try {
      KafkaRelayConfig.of(kafka, topic);
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage(), e);
    }
    String password =
        jdbcPasswordFile == null
            ? null
            : Files.readString(jdbcPasswordFile, StandardCharsets.UTF_8).strip();
    try (Database db = Database.open(jdbc, jdbcUser, password)) {
      TopicCheck.Report r =
          TopicCheck.check(kafka, topic, new ConfirmedFeed(db), Duration.ofMinutes(5));
      System.out.println(r.summary());
      return r.complete() || (allowBehind && r.ok()) ? ExitCodes.OK : ExitCodes.VIOLATION;
    }
  }
}
