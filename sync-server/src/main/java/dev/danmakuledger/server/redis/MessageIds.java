package dev.danmakuledger.server.redis;

import dev.danmakuledger.lua.DedupeScripts;
import dev.danmakuledger.protocol.id.MessageIdGenerator;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Snowflake message ids (docs/architecture.md §5) with a 10-bit node id leased from Redis, so that
 * server instances sharing a Redis never mint the same id. The lease is renewed at a third of its
 * TTL; if it was lost (Redis restarted, instance paused) a new node id is leased.
 */
public final class MessageIds implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(MessageIds.class);

  private final DedupeScripts scripts;
  private final String owner;
  private final Duration ttl;
  private final Clock clock;
  private final AtomicReference<MessageIdGenerator> generator = new AtomicReference<>();
  private final ScheduledExecutorService renewer;

  private MessageIds(DedupeScripts scripts, String owner, Duration ttl, Clock clock) {
    this.scripts = scripts;
    this.owner = owner;
    this.ttl = ttl;
    this.clock = clock;
    this.renewer =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "node-id-lease");
              t.setDaemon(true);
              return t;
            });
  }

  /**
   * Leases a node id for {@code owner} and starts renewing it.
   *
   * @throws dev.danmakuledger.lua.RedisUnavailableException when Redis cannot be reached
   */
  public static MessageIds lease(DedupeScripts scripts, String owner, Duration ttl, Clock clock) {
    MessageIds ids = new MessageIds(scripts, owner, ttl, clock);
    ids.generator.set(new MessageIdGenerator(scripts.leaseNodeId(owner, ttl), clock));
    long period = Math.max(1, ttl.toMillis() / 3);
    ids.renewer.scheduleWithFixedDelay(ids::renew, period, period, TimeUnit.MILLISECONDS);
    return ids;
  }

  private void renew() {
    MessageIdGenerator current = generator.get();
    try {
      if (!scripts.renewNodeId(current.nodeId(), owner, ttl)) {
        int fresh = scripts.leaseNodeId(owner, ttl);
        log.warn("node id {} lease lost; leased node id {}", current.nodeId(), fresh);
        generator.set(new MessageIdGenerator(fresh, clock));
      }
    } catch (RuntimeException e) {
      log.warn("renewing node id {} failed: {}", current.nodeId(), e.toString());
    }
  }

  /** The next message id. */
  public long next() {
    return generator.get().next();
  }

  /** The node id in use. */
  public int nodeId() {
    return generator.get().nodeId();
  }

  @Override
  public void close() {
    renewer.shutdownNow();
    try {
      scripts.releaseNodeId(nodeId(), owner);
    } catch (RuntimeException e) {
      log.debug("releasing node id failed: {}", e.toString());
    }
  }
}
