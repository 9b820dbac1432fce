package dev.danmakuledger.server.redis;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import io.lettuce.core.codec.StringCodec;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * Lettuce connections for the live fan-out and the instance registry (docs/architecture.md §7),
 * beside the script runner's: one shared connection for short commands (XADD, HSET) and, on demand,
 * dedicated connections for blocking reads (XREAD BLOCK holds its connection). Standalone and Redis
 * Cluster look the same through {@link RedisClusterCommands}; the cluster client routes each
 * single-key command by its key's slot. Thread-safe.
 */
public final class RedisLinks implements AutoCloseable {
  private final Supplier<Link> opener;
  private final Runnable shutdown;
  private final Link shared;

  /** One connection with its commands. */
  public record Link(RedisClusterCommands<String, String> commands, AutoCloseable connection)
      implements AutoCloseable {
    @Override
    public void close() {
      try {
        connection.close();
      } catch (Exception e) {
        // closing a broken connection has nothing left to release
      }
    }
  }

  private RedisLinks(Supplier<Link> opener, Runnable shutdown) {
    this.opener = opener;
    this.shutdown = shutdown;
    Link first;
    try {
      first = opener.get();
    } catch (RuntimeException e) {
      shutdown.run();
      throw e;
    }
    this.shared = first;
  }

  /** Links to one Redis server, e.g. {@code redis://:secret@127.0.0.1:6379}. */
  public static RedisLinks standalone(String redisUri) {
    RedisClient client = RedisClient.create(RedisURI.create(Objects.requireNonNull(redisUri)));
    client.setOptions(
        ClientOptions.builder()
            .autoReconnect(true)
            .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
            .build());
    return new RedisLinks(
        () -> {
          var c = client.connect(StringCodec.UTF8);
          return new Link(c.sync(), c);
        },
        client::shutdown);
  }

  /** Links to a Redis Cluster through any of its nodes. */
  public static RedisLinks cluster(List<String> seedUris) {
    List<RedisURI> uris = new ArrayList<>();
    for (String s : seedUris) {
      uris.add(RedisURI.create(s));
    }
    RedisClusterClient client = RedisClusterClient.create(uris);
    client.setOptions(
        ClusterClientOptions.builder()
            .autoReconnect(true)
            .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
            .build());
    return new RedisLinks(
        () -> {
          var c = client.connect(StringCodec.UTF8);
          return new Link(c.sync(), c);
        },
        client::shutdown);
  }

  /** The shared connection's commands: never use it for blocking commands. */
  public RedisClusterCommands<String, String> shared() {
    return shared.commands();
  }

  /** A new connection of its own, for a blocking reader; close it when done. */
  public Link dedicated() {
    return opener.get();
  }

  @Override
  public void close() {
    shared.close();
    shutdown.run();
  }
}
