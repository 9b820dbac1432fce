package dev.danmakuledger.lua;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisScriptingCommands;
import io.lettuce.core.api.sync.RedisStringCommands;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.codec.StringCodec;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The few Redis commands the runner needs, over one Lettuce connection to a standalone server or to
 * a Redis Cluster (where Lettuce routes EVALSHA/EVAL/GET by the first key's slot and follows
 * MOVED/ASK). Thread-safe: Lettuce connections multiplex callers.
 */
final class RedisOps implements AutoCloseable {
  private final RedisScriptingCommands<String, String> scripting;
  private final RedisStringCommands<String, String> strings;
  private final AutoCloseable connection;
  private final Runnable shutdown;

  private RedisOps(
      RedisScriptingCommands<String, String> scripting,
      RedisStringCommands<String, String> strings,
      AutoCloseable connection,
      Runnable shutdown) {
    this.scripting = scripting;
    this.strings = strings;
    this.connection = connection;
    this.shutdown = shutdown;
  }

  static RedisOps standalone(String redisUri) {
    RedisURI uri = RedisURI.create(Objects.requireNonNull(redisUri, "redisUri"));
    RedisClient client = RedisClient.create(uri);
    client.setOptions(
        ClientOptions.builder()
            .autoReconnect(true)
            .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
            .build());
    try {
      StatefulRedisConnection<String, String> connection = client.connect(StringCodec.UTF8);
      return new RedisOps(connection.sync(), connection.sync(), connection, client::shutdown);
    } catch (RuntimeException e) {
      client.shutdown();
      throw e;
    }
  }

  static RedisOps cluster(List<String> seedUris) {
    Objects.requireNonNull(seedUris, "seedUris");
    if (seedUris.isEmpty()) {
      throw new IllegalArgumentException("cluster seed URIs: got none, want at least one");
    }
    List<RedisURI> seeds = new ArrayList<>();
    for (String seed : seedUris) {
      seeds.add(RedisURI.create(seed));
    }
    RedisClusterClient client = RedisClusterClient.create(seeds);
    client.setOptions(
        ClusterClientOptions.builder()
            // Node connections open lazily on first use, so commands must wait for them;
            // the command timeout of the seed URI bounds the wait.
            .autoReconnect(true)
            .build());
    try {
      StatefulRedisClusterConnection<String, String> connection = client.connect(StringCodec.UTF8);
      return new RedisOps(connection.sync(), connection.sync(), connection, client::shutdown);
    } catch (RuntimeException e) {
      client.shutdown();
      throw e;
    }
  }

  List<Object> evalsha(String sha1, String[] keys, String[] args) {
    return scripting.evalsha(sha1, ScriptOutputType.MULTI, keys, args);
  }

  List<Object> eval(String source, String[] keys, String[] args) {
    return scripting.eval(source, ScriptOutputType.MULTI, keys, args);
  }

  String get(String key) {
    return strings.get(key);
  }

  @Override
  public void close() {
    try {
      connection.close();
    } catch (Exception e) {
      throw new IllegalStateException("closing the Redis connection", e);
    } finally {
      shutdown.run();
    }
  }
}
