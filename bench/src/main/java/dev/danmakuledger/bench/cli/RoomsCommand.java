package dev.danmakuledger.bench.cli;

import dev.danmakuledger.bench.rooms.RoomsBenchmark;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code bin/bench rooms}: see {@link RoomsBenchmark}. */
@Command(
    name = "rooms",
    mixinStandardHelpOptions = true,
    description = {
      "One sync server (its own JVM, on a redis-server of its own), or --servers of them behind an"
          + " HAProxy of the bench's own, with --rooms rooms of one SSE"
          + " subscriber each plus --crowd subscribers in one room, while devices ingest into"
          + " --active rooms: the server's threads, Redis connections and RSS over idle, every"
          + " stream judged exactly once and in order, capture->viewer p99 and checkpoint lag."
    })
final class RoomsCommand implements Callable<Integer> {
  @Spec CommandLine.Model.CommandSpec spec;
  @Mixin Output output;

  @Option(names = "--rooms", defaultValue = "10000", description = "rooms, one subscriber each")
  int rooms;

  @Option(names = "--crowd", defaultValue = "1000", description = "subscribers of one more room")
  int crowd;

  @Option(names = "--active", defaultValue = "1000", description = "rooms devices ingest into")
  int active;

  @Option(names = "--devices", defaultValue = "2", description = "ingesting devices")
  int devices;

  @Option(names = "--rate", defaultValue = "1000", description = "messages/s over all devices")
  int rate;

  @Option(
      names = "--duration",
      defaultValue = "60s",
      converter = DurationConverter.class,
      description = "how long the devices capture (default ${DEFAULT-VALUE})")
  Duration duration;

  @Option(
      names = "--warm-up",
      defaultValue = "60s",
      converter = DurationConverter.OrZero.class,
      description =
          "the devices first capture this long into the same rooms (a freshly started server"
              + " still compiles its code for about a minute); those messages are judged in the"
              + " streams like the rest, their latencies printed apart, not reported; 0s for none"
              + " (default ${DEFAULT-VALUE})")
  Duration warmUp;

  @Option(
      names = "--linger",
      defaultValue = "50ms",
      converter = DurationConverter.class,
      description = "the devices' linger (default ${DEFAULT-VALUE})")
  Duration linger;

  @Option(names = "--server-heap", defaultValue = "512m", description = "the server's -Xmx")
  String heap;

  @Option(
      names = "--jdbc",
      paramLabel = "URL",
      description = "a fresh MariaDB/MySQL database for the server (default: its H2 file)")
  String jdbc;

  @Option(
      names = "--servers",
      defaultValue = "1",
      description =
          "sync servers, 1..4; more than one share the --jdbc database behind an HAProxy the bench"
              + " starts (the haproxy package) and the figures are each instance's (default"
              + " ${DEFAULT-VALUE})")
  int servers;

  @Option(names = "--work-dir", paramLabel = "DIR", description = "server data and logs")
  Path workDir;

  @Override
  public Integer call() throws Exception {
    RoomsBenchmark.Options o;
    try {
      o =
          new RoomsBenchmark.Options(
              rooms, crowd, active, devices, rate, duration, warmUp, linger, heap, jdbc, servers);
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage(), e);
    }
    Path dir = workDir != null ? workDir : Files.createTempDirectory("bench-rooms");
    Files.createDirectories(dir);
    output.emit(
        System.out, RoomsBenchmark.run(o, System.out, dir, System.getProperty("java.class.path")));
    return ExitCodes.OK;
  }
}
