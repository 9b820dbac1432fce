package dev.danmakuledger.bench.cli;

import dev.danmakuledger.bench.kafka.KafkaBenchmark;
import dev.danmakuledger.server.kafka.LocalKafka;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code bin/bench kafka}: see {@link KafkaBenchmark}. */
@Command(
    name = "kafka",
    mixinStandardHelpOptions = true,
    description = {
      "The Kafka relay on one real KRaft broker started for the run: its throughput from SQL"
          + " into the topic next to a raw idempotent producer sending the same records, and the"
          + " commit->Kafka lag at the live shape (many devices, small batches) next to a raw"
          + " producer sending each message when its batch is answered."
    })
final class KafkaCommand implements Callable<Integer> {
  @Spec CommandLine.Model.CommandSpec spec;
  @Mixin Output output;

  @Option(
      names = "--messages",
      defaultValue = "40000",
      description = "messages of the throughput part (default 40000)")
  int messages;

  @Option(
      names = "--devices",
      defaultValue = "50",
      description = "devices of the lag part (default 50)")
  int devices;

  @Option(
      names = "--batch",
      defaultValue = "4",
      description = "messages per batch in the lag part (default 4)")
  int batch;

  @Option(
      names = "--every",
      defaultValue = "200ms",
      converter = DurationConverter.class,
      description = "a device's batch interval in the lag part (default 200ms)")
  Duration every;

  @Option(
      names = "--duration",
      defaultValue = "20s",
      converter = DurationConverter.class,
      description = "how long the lag part is measured (default 20s)")
  Duration duration;

  @Option(
      names = "--rooms",
      defaultValue = "8",
      description = "rooms of the throughput part, a device each (default 8)")
  int rooms;

  @Option(
      names = "--rounds",
      defaultValue = "3",
      description =
          "measured rounds of the throughput part, each a fresh relay and topic and a raw"
              + " producer after it; the medians are reported (default 3)")
  int rounds;

  @Option(
      names = "--warm-up",
      defaultValue = "10s",
      converter = DurationConverter.OrZero.class,
      description =
          "the lag part's devices first run windows this long until the JIT settled (at most"
              + " 6); what they send meanwhile is relayed and checked, its lag printed apart, not"
              + " reported; unless 0s, the throughput part first runs rounds that are not"
              + " reported until the JIT settled (at most 8) (default 10s)")
  Duration warmUp;

  @Option(
      names = "--jdbc",
      description =
          "a MariaDB/MySQL server, e.g. jdbc:mariadb://127.0.0.1:3306/?user=root&password= , on"
              + " which each part gets a fresh database (dropped after); default an H2 file in"
              + " the bench JVM")
  String jdbc;

  @Option(
      names = "--shards",
      defaultValue = "4",
      description = "the relay's shards, one transactional producer each (default 4, the relay's)")
  int shards;

  @Option(
      names = "--broker-jvm",
      defaultValue = "small",
      converter = BrokerJvm.class,
      description =
          "the broker's JVM: small (256 MiB heap, serial collector, C1 only, as the tests run it)"
              + " or server (1 GiB heap, G1, both JIT compilers, as Kafka's start scripts run it)"
              + " (default small)")
  LocalKafka.Jvm brokerJvm;

  /** {@code small} or {@code server}. */
  static final class BrokerJvm implements CommandLine.ITypeConverter<LocalKafka.Jvm> {
    @Override
    public LocalKafka.Jvm convert(String value) {
      return switch (value) {
        case "small" -> LocalKafka.Jvm.SMALL;
        case "server" -> LocalKafka.Jvm.SERVER;
        default ->
            throw new CommandLine.TypeConversionException(
                "got '" + value + "', want small or server");
      };
    }
  }

  @Override
  public Integer call() throws Exception {
    KafkaBenchmark.Options o;
    try {
      o =
          new KafkaBenchmark.Options(
              messages, devices, batch, every, duration, warmUp, rounds, brokerJvm, shards, rooms,
              jdbc);
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage(), e);
    }
    output.emit(System.out, KafkaBenchmark.run(o, System.out));
    return ExitCodes.OK;
  }
}
