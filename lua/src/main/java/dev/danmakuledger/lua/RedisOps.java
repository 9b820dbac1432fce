package dev.danmakuledger.lua;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import io.lettuce.core.api.sync.RedisHashCommands;
import io.lettuce.core.api.sync.RedisScriptingCommands;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.NestedMultiOutput;
import io.lettuce.core.protocol.AsyncCommand;
import io.lettuce.core.protocol.Command;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import io.lettuce.core.protocol.RedisCommand;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;

/**
 * The few Redis commands the runner needs, over one Lettuce connection to a standalone server or to
 * a Redis Cluster (where Lettuce routes EVALSHA/EVAL/HGET by the first key's slot and follows
 * MOVED/ASK). Thread-safe: Lettuce connections multiplex callers.
 */
final class RedisOps implements AutoCloseable {
  private final RedisScriptingCommands<String, String> scripting;
  private final RedisScriptingAsyncCommands<String, String> async;
  private final RedisHashCommands<String, String> hashes;
  private final StatefulConnection<String, String> connection;
  private final Duration timeout;
  private final Runnable shutdown;

  RedisOps(
      RedisScriptingCommands<String, String> scripting,
      RedisScriptingAsyncCommands<String, String> async,
      RedisHashCommands<String, String> hashes,
      StatefulConnection<String, String> connection,
      Duration timeout,
      Runnable shutdown) {
    this.scripting = scripting;
    this.async = async;
    this.hashes = hashes;
    this.connection = connection;
    this.timeout = timeout;
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
      return new RedisOps(
          connection.sync(),
          connection.async(),
          connection.sync(),
          connection,
          connection.getTimeout(),
          client::shutdown);
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
      return new RedisOps(
          connection.sync(),
          connection.async(),
          connection.sync(),
          connection,
          connection.getTimeout(),
          client::shutdown);
    } catch (RuntimeException e) {
      client.shutdown();
      throw e;
    }
  }

  List<Object> evalsha(String sha1, String[] keys, String[] args) {
    return scripting.evalsha(sha1, ScriptOutputType.MULTI, keys, args);
  }

  /**
   * Sends EVALSHA without waiting for the answer: calls sent one after another are in flight
   * together on the connection (pipelined), each routed by its first key's slot under a cluster.
   */
  CompletableFuture<List<Object>> evalshaAsync(String sha1, String[] keys, String[] args) {
    return async
        .<List<Object>>evalsha(sha1, ScriptOutputType.MULTI, keys, args)
        .toCompletableFuture();
  }

  /**
   * Sends one EVALSHA of {@code sha1} for each pair of {@code keys} and {@code args} without
   * waiting for the answers, all handed to the connection in one write (under a cluster, one write
   * to each node, each call routed by its first key's slot): a tick's admits cost one wake-up of
   * the connection's I/O thread and one buffer, not one of each per call. Handing the calls over
   * fails at once when, under a cluster, a node a call is routed to cannot be reached (a killed
   * master before its replica is promoted); every call's reply then fails with that error, so
   * callers see one kind of failure, a failed reply, whether Redis refused a call or never got it.
   * A call already written to a reachable node may still run; callers run a failed call again,
   * which returns what the first run stored (docs/lua-scripts.md, "Why retrying an admit never
   * assigns a second seq").
   *
   * @return each call's reply, in the order of {@code keys}
   */
  List<CompletableFuture<List<Object>>> evalshaAll(
      String sha1, List<String[]> keys, List<String[]> args) {
    if (keys.size() != args.size()) {
      throw new IllegalArgumentException(
          "calls: got " + keys.size() + " key lists and " + args.size() + " argument lists");
    }
    List<AsyncCommand<String, String, List<Object>>> commands = new ArrayList<>(keys.size());
    for (int i = 0; i < keys.size(); i++) {
      String[] k = keys.get(i);
      CommandArgs<String, String> a =
          new CommandArgs<>(StringCodec.UTF8)
              .add(sha1)
              .add(k.length)
              .addKeys(k)
              .addValues(args.get(i));
      commands.add(
          new AsyncCommand<>(
              new Command<>(CommandType.EVALSHA, new NestedMultiOutput<>(StringCodec.UTF8), a)));
    }
    if (!commands.isEmpty()) {
      List<RedisCommand<String, String, ?>> batch = new ArrayList<>(commands);
      try {
        connection.dispatch(batch);
      } catch (RedisException e) {
        for (AsyncCommand<String, String, List<Object>> c : commands) {
          c.completeExceptionally(e);
        }
      }
    }
    return new ArrayList<CompletableFuture<List<Object>>>(commands);
  }

  /** The command timeout of the connection (from the URI, Lettuce's default otherwise). */
  Duration timeout() {
    return timeout;
  }

  List<Object> eval(String source, String[] keys, String[] args) {
    return scripting.eval(source, ScriptOutputType.MULTI, keys, args);
  }

  String hget(String key, String field) {
    return hashes.hget(key, field);
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
