package dev.danmakuledger.server.ingest;

import dev.danmakuledger.lua.DedupeScripts;
import dev.danmakuledger.merkle.checkpoint.CosignatureSigner;
import dev.danmakuledger.merkle.checkpoint.NoteSigner;
import dev.danmakuledger.server.ServerConfig;
import dev.danmakuledger.server.events.AdminHub;
import dev.danmakuledger.server.events.RoomHub;
import dev.danmakuledger.server.redis.MessageIds;
import dev.danmakuledger.server.redis.RoomSequencer;
import dev.danmakuledger.server.storage.ConfirmedFeed;
import dev.danmakuledger.server.storage.Database;
import dev.danmakuledger.server.storage.LedgerStore;
import dev.danmakuledger.testkit.TestDevice;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The write path of one instance over shared stores, and enrolled devices, for the write-path ITs.
 */
public final class IngestFixtures {
  private static final SecureRandom KEYS = new SecureRandom();

  private IngestFixtures() {}

  /**
   * An instance's ingest on {@code db} and the Redis of {@code scripts}, with message ids from
   * {@code ids}; texts matching {@code review-me} are held for review.
   */
  public static BatchIngest ingest(
      LedgerStore store, Database db, DedupeScripts scripts, MessageIds ids, Clock clock) {
    return new BatchIngest(
        store,
        new RoomSequencer(scripts, Duration.ofDays(1)),
        ids,
        NoteSigner.generate("server", KEYS),
        CosignatureSigner.generate("server-cosigner", KEYS),
        List.of(),
        Pattern.compile("review-me"),
        new RoomHub(new ConfirmedFeed(db)),
        new AdminHub(),
        ServerConfig.DEFAULT_BATCH_WINDOW,
        clock);
  }

  /** A new device enrolled on {@code store}. */
  public static TestDevice enrolled(LedgerStore store, Clock clock, String id) {
    TestDevice d = TestDevice.create(id);
    new DeviceEnroller(
            store,
            "token",
            NoteSigner.generate("server", KEYS),
            CosignatureSigner.generate("server-cosigner", KEYS).verifierKey(),
            new AdminHub(),
            clock)
        .enroll(d.id, d.signer.publicKey(), "token");
    return d;
  }
}
