package dev.danmakuledger.server.roomlog;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.danmakuledger.merkle.checkpoint.Checkpoint;
import dev.danmakuledger.merkle.checkpoint.Checkpoints;
import dev.danmakuledger.merkle.checkpoint.NoteSigner;
import dev.danmakuledger.merkle.hash.Rfc6962;
import dev.danmakuledger.merkle.tiles.BundleWriter;
import dev.danmakuledger.merkle.tiles.Tile;
import dev.danmakuledger.merkle.tiles.TileId;
import dev.danmakuledger.merkle.tiles.TileReader;
import dev.danmakuledger.merkle.tiles.TileWriter;
import dev.danmakuledger.merkle.tiles.Tiles;
import dev.danmakuledger.protocol.room.RoomLog;
import dev.danmakuledger.protocol.testing.MutableClock;
import dev.danmakuledger.server.storage.DamagedRowException;
import dev.danmakuledger.server.storage.Database;
import dev.danmakuledger.server.storage.LogSlot;
import dev.danmakuledger.server.storage.MessageStatus;
import dev.danmakuledger.server.storage.RoomLogRow;
import dev.danmakuledger.server.storage.RoomLogStore;
import dev.danmakuledger.server.storage.RoomTile;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Room log integration (docs/room-log.md, "Integration") against an independent reference: the RFC
 * 6962 root recomputed here from the expected entry bytes, and the tiles a fresh merkle.tiles
 * writer cuts from them. Run on H2 ({@link RoomLogIntegratorTest}) and MariaDB/MySQL ({@link
 * MariaDbRoomLogIntegratorIT}).
 */
abstract class RoomLogIntegratorContract {
  private static final SecureRandom RANDOM = new SecureRandom();
  private static final NoteSigner LOG_KEY =
      NoteSigner.generate("danmaku-ledger/server-log/test", RANDOM);

  @TempDir Path dir;
  private Database db;

  /** Opens a fresh, migrated database. */
  abstract Database openDatabase(Path dir) throws Exception;

  /** Opens the database {@link #openDatabase} opened once more, as another server instance. */
  abstract Database openAgain(Path dir) throws Exception;

  /** Drops what {@link #openDatabase} created, after every database opened is closed. */
  abstract void dropDatabase() throws Exception;

  private RoomSlots slots;
  private MutableClock clock;
  private RoomLogStore store;

  @BeforeEach
  void open() throws Exception {
    db = openDatabase(dir);
    slots = new RoomSlots(db);
    clock = new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));
    store = new RoomLogStore(db, clock);
  }

  @AfterEach
  void close() throws Exception {
    db.close();
    dropDatabase();
  }

  private RoomLogIntegrator integrator() {
    return new RoomLogIntegrator(store, LOG_KEY, Duration.ofSeconds(1), clock);
  }

  /** RFC 6962 §2.1 MTH, written out recursively, independent of merkle.tiles. */
  static byte[] referenceRoot(List<byte[]> entries, int from, int to) {
    int n = to - from;
    if (n == 0) {
      return Rfc6962.emptyRoot();
    }
    if (n == 1) {
      return Rfc6962.leafHash(entries.get(from));
    }
    int k = Integer.highestOneBit(n - 1);
    return Rfc6962.nodeHash(
        referenceRoot(entries, from, from + k), referenceRoot(entries, from + k, to));
  }

  private List<byte[]> fill(String room, int n) throws Exception {
    List<byte[]> expected = new ArrayList<>();
    for (int i = 1; i <= n; i++) {
      expected.add(
          i % 7 == 0
              ? slots.tombstone(room, i, "gap-sealed")
              : slots.message(room, i, "dev-" + (i % 3), i));
    }
    return expected;
  }

  private void assertLogIs(String room, List<byte[]> expected) throws Exception {
    RoomLogRow head = store.log(room).orElseThrow();
    assertEquals(expected.size(), head.size());
    byte[] root = referenceRoot(expected, 0, expected.size());
    assertArrayEquals(root, head.root());
    Checkpoint cp = Checkpoints.open(head.checkpoint(), RoomLog.origin(room), LOG_KEY.verifier());
    assertEquals(expected.size(), cp.size());
    assertArrayEquals(root, cp.root());
    // every tile the reference writer cuts for this size is stored byte for byte
    TileWriter tiles = TileWriter.empty();
    BundleWriter bundles = BundleWriter.empty();
    List<Tile> full = new ArrayList<>();
    List<BundleWriter.Bundle> fullBundles = new ArrayList<>();
    for (byte[] e : expected) {
      full.addAll(tiles.append(Rfc6962.leafHash(e)));
      bundles.append(e).ifPresent(fullBundles::add);
    }
    full.addAll(tiles.partialTiles());
    bundles.partialBundle().ifPresent(fullBundles::add);
    for (Tile t : full) {
      assertArrayEquals(
          t.data(),
          store.tile(room, RoomTile.Kind.HASH, t.id()).orElseThrow(() -> new AssertionError(t)),
          t.toString());
    }
    for (BundleWriter.Bundle b : fullBundles) {
      assertArrayEquals(
          b.data(),
          store
              .tile(room, RoomTile.Kind.ENTRIES, b.id())
              .orElseThrow(() -> new AssertionError(b.id().entriesPath())),
          b.id().entriesPath());
    }
    // a partial tile is stored only where the tile is still partial: a full one replaced the rest
    try (Connection c = db.dataSource().getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT tile_level, idx, width FROM room_tiles WHERE room = ? AND width < ?")) {
      ps.setString(1, room);
      ps.setInt(2, TileId.FULL_WIDTH);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          TileId now = Tiles.tileAt(head.size(), rs.getInt(1), rs.getLong(2));
          String stored = rs.getInt(1) + "/" + rs.getLong(2) + ".p/" + rs.getInt(3);
          assertTrue(now != null && !now.isFull(), stored + " at size " + head.size());
          assertTrue(rs.getInt(3) <= now.width(), stored + " at size " + head.size());
        }
      }
    }
    // and the stored tiles prove every entry into the checkpoint
    TileReader reader = new TileReader(store.tiles(room), head.size());
    for (int i = 0; i < expected.size(); i += Math.max(1, expected.size() / 17)) {
      List<byte[]> got = reader.entries(i / TileId.FULL_WIDTH);
      assertArrayEquals(expected.get(i), got.get(i % TileId.FULL_WIDTH));
    }
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 2, 7, 255, 256, 257, 300, 513, 1000})
  void integratesRoomsOfManySizesExactlyAsTheReference(int n) throws Exception {
    List<byte[]> expected = fill("r" + n, n);
    assertEquals(n, integrator().integrateNow());
    assertLogIs("r" + n, expected);
  }

  @Test
  void growsInStepsAcrossTileBoundariesAndResumesAfterARestart() throws Exception {
    String room = "steps";
    List<byte[]> expected = new ArrayList<>();
    int seq = 0;
    RoomLogIntegrator first = integrator();
    for (int step : new int[] {3, 250, 3, 1, 255, 256, 40}) {
      for (int i = 0; i < step; i++) {
        seq++;
        expected.add(slots.message(room, seq, "dev", seq));
      }
      assertEquals(step, first.integrateNow());
      assertLogIs(room, expected);
    }
    // a new integrator (a restarted server) resumes from the stored partial tiles
    for (int i = 0; i < 300; i++) {
      seq++;
      expected.add(slots.message(room, seq, "dev", seq));
    }
    assertEquals(300, integrator().integrateNow());
    assertLogIs(room, expected);
  }

  @Test
  void aPartialTileIsStoredAsThePieceItsStepAppendedAndEveryPublishedWidthIsServedWhole()
      throws Exception {
    String room = "pieces";
    List<byte[]> expected = new ArrayList<>();
    Map<Integer, byte[]> hashTiles = new LinkedHashMap<>();
    Map<Integer, byte[]> bundles = new LinkedHashMap<>();
    RoomLogIntegrator integrator = integrator();
    int seq = 0;
    for (int step : new int[] {3, 1, 2, 250, 5, 1, 7}) {
      for (int i = 0; i < step; i++) {
        seq++;
        expected.add(slots.message(room, seq, "dev", seq));
      }
      assertEquals(step, integrator.integrateNow());
      TileWriter tiles = TileWriter.empty();
      BundleWriter entries = BundleWriter.empty();
      for (byte[] e : expected) {
        tiles.append(Rfc6962.leafHash(e));
        entries.append(e);
      }
      if (seq % TileId.FULL_WIDTH != 0) {
        hashTiles.put(seq, tiles.partialTiles().get(0).data());
        bundles.put(seq, entries.partialBundle().orElseThrow().data());
      }
    }
    assertLogIs(room, expected);
    // every width published since the tile's index turned partial (sizes 261, 262, 269) is served
    // whole, byte for byte, from its pieces; the widths of the full tile before are gone
    for (int size : hashTiles.keySet()) {
      int width = size % TileId.FULL_WIDTH;
      long index = size / TileId.FULL_WIDTH;
      Optional<byte[]> hash = store.tile(room, RoomTile.Kind.HASH, new TileId(0, index, width));
      Optional<byte[]> bundle =
          store.tile(room, RoomTile.Kind.ENTRIES, new TileId(0, index, width));
      if (index == seq / TileId.FULL_WIDTH) {
        assertArrayEquals(hashTiles.get(size), hash.orElseThrow(), "hash tile at size " + size);
        assertArrayEquals(bundles.get(size), bundle.orElseThrow(), "bundle at size " + size);
      } else {
        assertTrue(hash.isEmpty() && bundle.isEmpty(), "replaced by the full tile: " + size);
      }
    }
    // the last step wrote 7 hashes and 7 entries, not the 13 of its partial tile
    try (Connection c = db.dataSource().getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT kind, from_width, data, encoding FROM room_tiles"
                    + " WHERE room = ? AND tile_level = 0 AND idx = 1 AND width = 13")) {
      ps.setString(1, room);
      try (ResultSet rs = ps.executeQuery()) {
        int rows = 0;
        while (rs.next()) {
          rows++;
          assertEquals(6, rs.getInt(2), rs.getString(1));
          assertEquals("identity", rs.getString(4), rs.getString(1));
          byte[] whole = rs.getString(1).equals("hash") ? hashTiles.get(269) : bundles.get(269);
          byte[] before = rs.getString(1).equals("hash") ? hashTiles.get(262) : bundles.get(262);
          assertArrayEquals(Arrays.copyOfRange(whole, before.length, whole.length), rs.getBytes(3));
        }
        assertEquals(2, rows, "a hash tile piece and a bundle piece");
      }
    }
  }

  @Test
  void aPieceWhoseTileBeforeItIsMissingIsReportedAsDamaged() throws Exception {
    String room = "broken";
    List<byte[]> leaves = new ArrayList<>();
    for (int seq = 1; seq <= 5; seq++) {
      leaves.add(Rfc6962.leafHash(slots.message(room, seq, "dev", seq)));
      assertEquals(1, integrator().integrateNow());
    }
    try (Connection c = db.dataSource().getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "DELETE FROM room_tiles WHERE room = ? AND kind = 'hash' AND width = 3")) {
      ps.setString(1, room);
      assertEquals(1, ps.executeUpdate());
    }
    DamagedRowException e =
        assertThrows(
            DamagedRowException.class,
            () -> store.tile(room, RoomTile.Kind.HASH, new TileId(0, 0, 5)));
    assertEquals("(broken, hash, 0, 0, 3)", e.key());
    // the widths below the missing piece are still served
    byte[] two = new byte[2 * Rfc6962.HASH_SIZE];
    System.arraycopy(leaves.get(0), 0, two, 0, Rfc6962.HASH_SIZE);
    System.arraycopy(leaves.get(1), 0, two, Rfc6962.HASH_SIZE, Rfc6962.HASH_SIZE);
    assertArrayEquals(two, store.tile(room, RoomTile.Kind.HASH, new TileId(0, 0, 2)).orElseThrow());
  }

  @Test
  void waitsAtAnOpenNumberUntilItIsCommittedOrSealed() throws Exception {
    String room = "gaps";
    List<byte[]> expected = new ArrayList<>();
    expected.add(slots.message(room, 1, "dev", 1));
    expected.add(slots.message(room, 2, "dev", 2));
    byte[] four = slots.message(room, 4, "dev", 4);
    RoomLogIntegrator integrator = integrator();
    assertEquals(2, integrator.integrateNow());
    assertLogIs(room, expected);
    assertEquals(0, integrator.integrateNow(), "seq 3 is open: nothing past it");
    assertEquals(2, store.log(room).orElseThrow().size());
    expected.add(slots.tombstone(room, 3, "gap-sealed"));
    expected.add(four);
    assertEquals(2, integrator.integrateNow());
    assertLogIs(room, expected);
  }

  @Test
  void anUnknownTombstoneReasonIsWrittenAsUnrecorded() throws Exception {
    slots.tombstone("odd", 1, "Free text, not a code");
    integrator().integrateNow();
    TileReader reader = new TileReader(store.tiles("odd"), 1);
    assertEquals("v1 1 T unrecorded", new String(reader.entries(0).get(0)));
  }

  @Test
  void checkpointsAreSignedAtMostOncePerIntervalOnTheSchedule() throws Exception {
    RoomLogIntegrator integrator = integrator();
    slots.message("paced", 1, "dev", 1);
    assertEquals(1, integrator.integrate("paced", false));
    slots.message("paced", 2, "dev", 2);
    assertEquals(0, integrator.integrate("paced", false), "within the interval");
    clock.advance(Duration.ofMillis(999));
    assertEquals(0, integrator.integrate("paced", false), "within the interval");
    clock.advance(Duration.ofMillis(1));
    assertEquals(1, integrator.integrate("paced", false));
    assertEquals(2, store.log("paced").orElseThrow().size());
  }

  @Test
  void twoIntegratorsOnOneDatabaseBuildOneTree() throws Exception {
    String room = "race";
    List<byte[]> expected = new ArrayList<>();
    Database other = openAgain(dir);
    RoomLogStore otherStore = new RoomLogStore(other, clock);
    RoomLogIntegrator a = integrator();
    RoomLogIntegrator b = new RoomLogIntegrator(otherStore, LOG_KEY, Duration.ofSeconds(1), clock);
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      int seq = 0;
      for (int round = 0; round < 12; round++) {
        for (int i = 0; i < 37; i++) {
          seq++;
          expected.add(slots.message(room, seq, "dev-" + (seq % 2), seq));
        }
        List<Callable<Long>> both = List.of(a::integrateNow, b::integrateNow);
        long appended = 0;
        for (Future<Long> f : pool.invokeAll(both, 60, TimeUnit.SECONDS)) {
          appended += f.get();
        }
        assertEquals(37, appended, "round " + round + ": each entry appended exactly once");
        assertLogIs(room, expected);
      }
      assertArrayEquals(
          store.log(room).orElseThrow().root(),
          otherStore.log(room).orElseThrow().root(),
          "both instances see one tree");
    } finally {
      pool.shutdownNow();
      other.close();
    }
  }

  @Test
  void aScheduledRunPassesOverARoomAnotherInstanceIsSteppingAndAForcedOneWaitsForIt()
      throws Exception {
    RoomLogIntegrator integrator =
        new RoomLogIntegrator(store, LOG_KEY, Duration.ofHours(1), clock);
    integrator.start(); // the first scheduled run is an hour away: tests run them by hand
    List<byte[]> held = new ArrayList<>(List.of(slots.message("held", 1, "dev", 1)));
    List<byte[]> free = new ArrayList<>(List.of(slots.tombstone("free", 1, "gap-sealed")));
    assertEquals(2, integrator.runScheduled());
    held.add(slots.message("held", 2, "dev", 2));
    free.add(slots.tombstone("free", 2, "gap-sealed"));
    integrator.committed("held", List.of(committed(2, "dev", 2)));
    integrator.committed(
        "free",
        List.of(
            new LogSlot(2, MessageStatus.TOMBSTONE, "gap-sealed", null, null, null, null, null)));
    clock.advance(Duration.ofHours(1));
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try (Connection other = db.dataSource().getConnection()) {
      other.setAutoCommit(false);
      try (PreparedStatement ps =
          other.prepareStatement("SELECT tree_size FROM room_logs WHERE room = ? FOR UPDATE")) {
        ps.setString(1, "held");
        ps.executeQuery().close();
      }
      assertEquals(1, integrator.runScheduled(), "the free room only, without waiting");
      assertLogIs("free", free);
      assertEquals(1, store.log("held").orElseThrow().size());
      Future<Long> forced = pool.submit(integrator::integrateNow);
      Thread.sleep(200);
      other.rollback();
      assertEquals(1, forced.get(60, TimeUnit.SECONDS), "the held room once it is let go");
      assertLogIs("held", held);
    } finally {
      pool.shutdownNow();
    }
    held.add(slots.message("held", 3, "dev", 3));
    integrator.committed("held", List.of(committed(3, "dev", 3)));
    clock.advance(Duration.ofHours(1));
    assertEquals(1, integrator.runScheduled(), "the room's next number, by a scheduled run");
    assertLogIs("held", held);
    integrator.close();
  }

  /** What {@link #renumberMessageIds} adds to the message ids in SQL. */
  private static final long MOVED = 1_000_000;

  /**
   * Gives the messages {@code from..to} of {@code room} other message ids in SQL than those of the
   * slots handed over for them, so that a log shows which of the two it was built from.
   */
  private void renumberMessageIds(String room, long from, long to) throws Exception {
    try (Connection c = db.dataSource().getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "UPDATE messages SET message_id = message_id + ? WHERE room = ? AND seq BETWEEN ? AND ?")) {
      ps.setLong(1, MOVED);
      ps.setString(2, room);
      ps.setLong(3, from);
      ps.setLong(4, to);
      assertEquals(to - from + 1, ps.executeUpdate());
    }
  }

  /** The slot {@link RoomSlots#message} commits, as the write path hands it over. */
  private static LogSlot committed(long seq, String device, long index) {
    return committed(seq, device, index, 1000 + seq);
  }

  private static LogSlot committed(long seq, String device, long index, long messageId) {
    return new LogSlot(
        seq,
        MessageStatus.CONFIRMED,
        null,
        messageId,
        device,
        index,
        RoomSlots.key(device, index),
        Rfc6962.leafHash(RoomSlots.canonical(device, index)));
  }

  @Test
  void slotsHandedOverAreIntegratedFromMemoryAndTheRestIsReadFromSql() throws Exception {
    String room = "handed";
    List<byte[]> expected = new ArrayList<>();
    List<LogSlot> handed = new ArrayList<>();
    for (int seq = 1; seq <= 300; seq++) {
      expected.add(slots.message(room, seq, "dev", seq));
      if (seq <= 200) {
        handed.add(committed(seq, "dev", seq));
      }
    }
    RoomLogIntegrator integrator =
        new RoomLogIntegrator(store, LOG_KEY, Duration.ofHours(1), clock);
    integrator.start(); // holds what it is handed; the first scheduled run is an hour away
    try {
      integrator.committed(room, handed);
      // SQL no longer holds what was handed over: a log of the handed entries was not read back
      renumberMessageIds(room, 1, 200);
      assertEquals(300, integrator.integrateNow());
      assertLogIs(room, expected); // 201..300 were not handed over: read from SQL
      // a later batch of the same room, all handed over: nothing is read back
      List<LogSlot> more = new ArrayList<>();
      for (int seq = 301; seq <= 340; seq++) {
        expected.add(slots.message(room, seq, "dev", seq));
        more.add(committed(seq, "dev", seq));
      }
      integrator.committed(room, more);
      renumberMessageIds(room, 301, 340);
      assertEquals(40, integrator.integrateNow());
      assertLogIs(room, expected);
    } finally {
      integrator.close();
    }
  }

  @Test
  void roomsOfOneRunTakeTheSlotsTheyHoldFromMemoryAndTheRestFromSqlEachTheirOwn() throws Exception {
    // one step: a room handed all of its slots, one handed the first half, one handed none, and
    // one whose slots in SQL have a hole; the slots not held are read for all rooms at once
    List<String> rooms = List.of("held-all", "held-half", "held-none");
    int[] handedThrough = {60, 30, 0};
    Map<String, List<byte[]>> expected = new HashMap<>();
    RoomLogIntegrator integrator =
        new RoomLogIntegrator(store, LOG_KEY, Duration.ofHours(1), clock);
    integrator.start();
    try {
      for (int r = 0; r < rooms.size(); r++) {
        String room = rooms.get(r);
        List<byte[]> entries = new ArrayList<>();
        List<LogSlot> handed = new ArrayList<>();
        for (int seq = 1; seq <= 60; seq++) {
          long id = 100_000L * (r + 1) + seq;
          entries.add(slots.message(room, seq, room + "-dev", seq, id));
          if (seq <= handedThrough[r]) {
            handed.add(committed(seq, room + "-dev", seq, id));
          }
        }
        expected.put(room, entries);
        integrator.committed(room, handed);
        if (handedThrough[r] > 0) {
          // SQL no longer holds what was handed over: a log of it was not read back
          renumberMessageIds(room, 1, handedThrough[r]);
        }
      }
      List<byte[]> holed = new ArrayList<>();
      for (int seq = 1; seq <= 20; seq++) {
        if (seq != 11) {
          holed.add(slots.message("holed", seq, "holed-dev", seq, 500_000L + seq));
        }
      }

      assertEquals(3 * 60 + 10, integrator.integrateNow());

      for (String room : rooms) {
        assertLogIs(room, expected.get(room));
      }
      assertLogIs("holed", holed.subList(0, 10));
      holed.add(10, slots.message("holed", 11, "holed-dev", 11, 500_011L));
      assertEquals(10, integrator.integrateNow(), "the hole filled, the rest follows");
      assertLogIs("holed", holed);
    } finally {
      integrator.close();
    }
  }

  @Test
  void slotsHandedOverBeforeTheIntegratorStartsAreIgnored() throws Exception {
    RoomLogIntegrator integrator = integrator();
    slots.message("early", 1, "dev", 1);
    integrator.committed("early", List.of(committed(1, "dev", 1)));
    // SQL holds another message id than the slot handed over: the log must follow SQL
    renumberMessageIds("early", 1, 1);
    assertEquals(1, integrator.integrateNow());
    assertLogIs("early", List.of(RoomSlots.entry(1, MOVED + 1001, "dev", 1)));
  }

  @Test
  void aRoomWhoseStoredTilesAreDamagedHoldsBackNoOtherRoom() throws Exception {
    List<byte[]> good = new ArrayList<>();
    for (int seq = 1; seq <= 300; seq++) {
      good.add(slots.message("good", seq, "good-dev", seq));
      slots.tombstone("damaged", seq, "gap-sealed"); // message ids follow seq: one room has them
    }
    assertEquals(600, integrator().integrateNow());
    try (Connection c = db.dataSource().getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "UPDATE room_tiles SET data = ? WHERE room = 'damaged' AND kind = 'hash'"
                    + " AND tile_level = 0 AND width < 256")) {
      ps.setBytes(1, new byte[] {1, 2, 3});
      assertEquals(1, ps.executeUpdate(), "the partial hash tile of size 300");
    }
    for (int seq = 301; seq <= 310; seq++) {
      good.add(slots.message("good", seq, "good-dev", seq));
      slots.tombstone("damaged", seq, "gap-sealed"); // message ids follow seq: one room has them
    }
    // a new instance resumes both rooms from their stored tiles: one of them cannot be resumed
    List<DamagedRowException> damaged = new ArrayList<>();
    assertEquals(10, integrator().reportingDamageTo(damaged::add).integrateNow());
    assertLogIs("good", good);
    assertEquals(300, store.log("damaged").orElseThrow().size());
    assertEquals(1, damaged.size(), "the damaged tile is reported for an alert");
    assertEquals("room_tiles", damaged.get(0).table());
    assertEquals("(damaged, hash, 0, 1, 44)", damaged.get(0).key());
  }

  @Test
  void aScheduledRunLooksAtTheRoomsHandedOverAsFarAsHandedAndAtEveryRoomNowAndThen()
      throws Exception {
    RoomLogIntegrator integrator =
        new RoomLogIntegrator(store, LOG_KEY, Duration.ofHours(1), clock);
    integrator.start(); // the first scheduled run is an hour away: tests run them by hand
    try {
      assertEquals(0, integrator.runScheduled(), "the first run looks at every room: none yet");
      byte[] handed = slots.message("handed", 1, "dev", 1);
      byte[] quiet = slots.tombstone("quiet", 1, "gap-sealed"); // message ids follow seq
      // a number another instance committed: that instance integrates it, or a sweep does
      byte[] elsewhere = slots.message("handed", 2, "dev", 2);
      integrator.committed("handed", List.of(committed(1, "dev", 1)));
      assertEquals(1, integrator.runScheduled(), "the room handed over, as far as handed");
      assertLogIs("handed", List.of(handed));
      for (int run = 2; run < RoomLogIntegrator.SWEEP_EVERY_RUNS; run++) {
        assertEquals(0, integrator.runScheduled(), "run " + run + " looks at no room");
      }
      assertTrue(store.log("quiet").isEmpty(), "not looked at yet");
      clock.advance(Duration.ofHours(1)); // the handed room's next checkpoint is due
      assertEquals(2, integrator.runScheduled(), "every room again, every number of each");
      assertLogIs("quiet", List.of(quiet));
      assertLogIs("handed", List.of(handed, elsewhere));
    } finally {
      integrator.close();
    }
  }

  @Test
  void aScheduledRunWithMoreRoomsBehindThanOneTransactionTakesReachesEveryRoom() throws Exception {
    int rooms = 2 * RoomLogIntegrator.ROOMS_PER_STEP + 1;
    RoomLogIntegrator integrator =
        new RoomLogIntegrator(store, LOG_KEY, Duration.ofHours(1), clock);
    integrator.start(); // the first scheduled run is an hour away: tests run them by hand
    try {
      Map<String, byte[]> entries = new HashMap<>();
      for (int i = 0; i < rooms; i++) {
        // tombstones: message ids follow seq, so only one room may hold a message at seq 1
        entries.put("chunked-" + i, slots.tombstone("chunked-" + i, 1, "gap-sealed"));
      }
      assertEquals(rooms, integrator.runScheduled(), "three transactions, one entry a room");
      for (Map.Entry<String, byte[]> e : entries.entrySet()) {
        assertLogIs(e.getKey(), List.of(e.getValue()));
      }
    } finally {
      integrator.close();
    }
  }

  @Test
  void roomsWhoseRecordsShareDeviceBundlesGetEachItsOwnLeafInOneRun() throws Exception {
    // two devices' batches of 256 and 44 records spread round robin over 150 rooms, as a live
    // venue's are: one run steps every room (five transactions of at most 64 rooms)
    List<String> rooms = new ArrayList<>();
    for (int i = 0; i < 300; i++) {
      rooms.add("spread-" + (i % 150) + (i < 150 ? "" : "-b"));
    }
    List<byte[]> first = slots.spread("dev-a", 1, rooms.subList(0, 256), 50_000);
    List<byte[]> second = slots.spread("dev-b", 7, rooms.subList(256, 300), 60_000);
    assertEquals(300, integrator().integrateNow());
    for (int i = 0; i < 300; i++) {
      assertLogIs(rooms.get(i), List.of(i < 256 ? first.get(i) : second.get(i - 256)));
    }
  }

  @Test
  void slotsHeldForARoomAnotherInstanceIntegratedAreForgotten() throws Exception {
    String room = "elsewhere";
    List<byte[]> expected = new ArrayList<>();
    List<LogSlot> handed = new ArrayList<>();
    for (int seq = 1; seq <= 50; seq++) {
      expected.add(slots.message(room, seq, "dev", seq));
      handed.add(committed(seq, "dev", seq));
    }
    RoomLogIntegrator holder = new RoomLogIntegrator(store, LOG_KEY, Duration.ofHours(1), clock);
    holder.start();
    try {
      holder.committed(room, handed);
      assertEquals(50, holder.slotsHeld());
      assertEquals(50, integrator().integrateNow(), "another instance extends the log");
      assertLogIs(room, expected);
      slots.message(room, 51, "dev", 51); // behind again, but just published: not due
      assertEquals(0, holder.runScheduled());
      assertEquals(0, holder.slotsHeld(), "what the other instance integrated is not kept");
    } finally {
      holder.close();
    }
  }
}
