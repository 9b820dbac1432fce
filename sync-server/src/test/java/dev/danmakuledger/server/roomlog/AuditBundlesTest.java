package dev.danmakuledger.server.roomlog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.danmakuledger.merkle.checkpoint.NoteSigner;
import dev.danmakuledger.protocol.error.ErrorCode;
import dev.danmakuledger.protocol.testing.MutableClock;
import dev.danmakuledger.server.LedgerException;
import dev.danmakuledger.server.storage.Database;
import dev.danmakuledger.server.storage.LedgerStore;
import dev.danmakuledger.server.storage.RoomLogStore;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The refusals of the audit bundle endpoint (docs/room-log.md, "Audit bundle"). */
final class AuditBundlesTest {
  @TempDir Path dir;
  private Database db;
  private RoomSlots slots;
  private RoomLogIntegrator integrator;
  private AuditBundles bundles;

  @BeforeEach
  void open() {
    db = Database.open(Database.h2Url(dir), null, null);
    slots = new RoomSlots(db);
    MutableClock clock = new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));
    RoomLogStore logs = new RoomLogStore(db, clock);
    integrator =
        new RoomLogIntegrator(
            logs,
            NoteSigner.generate("danmaku-ledger/server-log/t", new SecureRandom()),
            Duration.ofSeconds(1),
            clock);
    bundles = new AuditBundles(new LedgerStore(db, clock), logs);
  }

  @AfterEach
  void close() {
    db.close();
  }

  private ErrorCode refusal(String room, long seq, boolean operator) {
    return assertThrows(LedgerException.class, () -> bundles.bundle(room, seq, operator)).code();
  }

  @Test
  void refusesWhatIsNotAnIntegratedMessageWithTheRightCode() throws Exception {
    slots.message("r", 1, "dev", 1);
    slots.tombstone("r", 2, "gap-sealed");
    slots.message("r", 3, "dev", 3, "PENDING");
    slots.message("r", 5, "dev", 5);

    LedgerException early =
        assertThrows(LedgerException.class, () -> bundles.bundle("r", 1, false));
    assertEquals(ErrorCode.NOT_INTEGRATED, early.code());
    assertEquals(1L, early.extensions().get("retryAfterSeconds"));

    integrator.integrateNow();
    assertEquals(ErrorCode.TOMBSTONE, refusal("r", 2, true));
    assertEquals(ErrorCode.UNAUTHENTICATED, refusal("r", 3, false));
    assertEquals(ErrorCode.NOT_FOUND, refusal("r", 4, true));
    assertEquals(ErrorCode.NOT_INTEGRATED, refusal("r", 5, false), "seq 4 is still open");
    assertEquals(ErrorCode.NOT_FOUND, refusal("other-room", 1, true));
  }
}
