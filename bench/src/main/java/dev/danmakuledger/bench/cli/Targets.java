package dev.danmakuledger.bench.cli;

import picocli.CommandLine.Option;

/**
 * Where the server under test keeps its state (docs/architecture.md §6); embedded when not given.
 */
final class Targets {
  @Option(
      names = "--redis",
      paramLabel = "URI",
      description = "Redis, e.g. redis://127.0.0.1:6379 (default: an embedded redis-server)")
  String redis;

  @Option(
      names = "--jdbc",
      paramLabel = "URL",
      description =
          "MariaDB/MySQL server, e.g. jdbc:mariadb://127.0.0.1:3306/?user=root&password= ;"
              + " a fresh database is created for the run and dropped after (default: H2)")
  String jdbc;
}
