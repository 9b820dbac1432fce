package dev.danmakuledger.ui.roomlog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.danmakuledger.merkle.checkpoint.NoteSigner;
import dev.danmakuledger.protocol.wire.admin.AdminEvent;
import dev.danmakuledger.protocol.wire.admin.RoomSummary;
import dev.danmakuledger.ui.testing.Harness;
import dev.danmakuledger.ui.testing.RoomLogFixture;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import javafx.beans.property.ReadOnlyListWrapper;
import javafx.collections.FXCollections;
import okhttp3.mockwebserver.Dispatcher;
import okhttp3.mockwebserver.MockResponse;
import okhttp3.mockwebserver.RecordedRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The console's room log audit against a MockWebServer publishing logs written with the merkle tile
 * writers: a genuine log verifies, a grown one verifies by consistency, a split view (another tree,
 * larger, equal or smaller) is caught, alerted and kept across a restart with the same history, and
 * a bad signature or tampered tiles are told apart from it; another server's log of a room with the
 * same name is a log of its own, not a split view.
 */
class RoomLogsViewModelTest {
  private final Harness h = new Harness();
  private final RoomLogFixture logs = new RoomLogFixture(h.clock);

  /** The server the mock answers as: {@link #logs} unless a test switches to another one. */
  private volatile RoomLogFixture serving = logs;

  private final Map<String, AtomicInteger> hits = new ConcurrentHashMap<>();
  private final ReadOnlyListWrapper<RoomSummary> rooms =
      new ReadOnlyListWrapper<>(FXCollections.observableArrayList());
  private RoomLogsViewModel vm;

  @BeforeEach
  void serve() {
    h.server.setDispatcher(
        new Dispatcher() {
          @Override
          public MockResponse dispatch(RecordedRequest r) {
            hits.computeIfAbsent(r.getRequestUrl().encodedPath(), p -> new AtomicInteger())
                .incrementAndGet();
            MockResponse m = serving.serve(r.getRequestUrl().pathSegments());
            return m == null ? new MockResponse().setResponseCode(404) : m;
          }
        });
    vm = new RoomLogsViewModel(h.context, rooms.getReadOnlyProperty());
  }

  @AfterEach
  void close() {
    h.close();
  }

  @Test
  void genuineLogIsVerified() {
    logs.grow("lobby", 300);
    h.clock.advance(Duration.ofSeconds(42));
    rooms.setAll(List.of(summary("lobby")));
    RoomLogState s = vm.states().get("lobby");
    assertEquals(RoomLogStatus.VERIFIED, s.status(), s.detail());
    assertEquals(300, s.size());
    assertEquals(42, s.ageSeconds(), "age from the server's cosignature");
    assertEquals("root recomputed from the tiles", s.detail());
    assertTrue(vm.alerts().isEmpty());
  }

  @Test
  void extensionIsVerifiedByConsistencyAndFullTilesAreFetchedOnce() {
    logs.grow("lobby", 300);
    rooms.setAll(List.of(summary("lobby")));
    logs.grow("lobby", 700);
    vm.refresh();
    RoomLogState s = vm.states().get("lobby");
    assertEquals(RoomLogStatus.VERIFIED, s.status(), s.detail());
    assertEquals(700, s.size());
    assertEquals("root recomputed from the tiles; consistent with size 300", s.detail());
    vm.refresh();
    assertEquals(1, hits.get("/v1/rooms/lobby/log/tile/0/000").get(), hits.toString());
    assertEquals(3, hits.get("/v1/rooms/lobby/log/checkpoint").get());
  }

  @Test
  void largerOtherTreeIsASplitViewKeptAcrossARestart() {
    logs.grow("lobby", 300);
    rooms.setAll(List.of(summary("lobby")));
    logs.fork("lobby", 700);
    vm.refresh();
    assertSplit(vm, "size 700 is not an extension of size 300 verified before");

    RoomLogsViewModel restarted = new RoomLogsViewModel(h.context, rooms.getReadOnlyProperty());
    restarted.restore();
    assertSplit(restarted, "size 700 is not an extension of size 300");
    assertEquals(300, restarted.states().get("lobby").size());

    logs.fork("lobby", 800);
    restarted.refresh();
    assertSplit(restarted, "size 700 is not an extension of size 300");
    assertEquals(300, restarted.states().get("lobby").size(), "the trusted size does not move");
  }

  @Test
  void restartWithoutRestoreStillChecksAgainstTheHistory() {
    logs.grow("lobby", 300);
    rooms.setAll(List.of(summary("lobby")));
    logs.fork("lobby", 700);
    ReadOnlyListWrapper<RoomSummary> again =
        new ReadOnlyListWrapper<>(FXCollections.observableArrayList());
    RoomLogsViewModel restarted = new RoomLogsViewModel(h.context, again.getReadOnlyProperty());
    again.setAll(List.of(summary("lobby")));
    assertSplit(restarted, "size 700 is not an extension of size 300");
  }

  @Test
  void sameSizeOtherRootIsASplitView() {
    logs.grow("lobby", 300);
    rooms.setAll(List.of(summary("lobby")));
    logs.fork("lobby", 300);
    vm.refresh();
    assertSplit(vm, "size 300 has root ");
  }

  @Test
  void smallerCheckpointIsASplitView() {
    logs.grow("lobby", 300);
    rooms.setAll(List.of(summary("lobby")));
    logs.fork("lobby", 200);
    vm.refresh();
    assertSplit(vm, "size 200 is smaller than size 300 verified before");
  }

  @Test
  void anotherServersRoomOfTheSameNameIsALogOfItsOwn() {
    logs.grow("lobby", 300);
    rooms.setAll(List.of(summary("lobby")));
    assertEquals(RoomLogStatus.VERIFIED, vm.states().get("lobby").status());

    RoomLogFixture other = new RoomLogFixture(h.clock);
    other.grow("lobby", 200); // smaller: a split view, were it the same log
    serving = other;
    vm.refresh();
    RoomLogState s = vm.states().get("lobby");
    assertEquals(RoomLogStatus.VERIFIED, s.status(), s.detail());
    assertEquals(200, s.size());
    assertTrue(
        s.detail().contains("also keeps a log of room lobby under another log key"), s.detail());
    assertTrue(vm.alerts().isEmpty(), vm.alerts().toString());

    logs.grow("lobby", 400);
    serving = logs;
    vm.refresh();
    s = vm.states().get("lobby");
    assertEquals(RoomLogStatus.VERIFIED, s.status(), s.detail());
    assertTrue(
        s.detail().startsWith("root recomputed from the tiles; consistent with size 300"),
        s.detail());

    logs.fork("lobby", 350); // the first server's own log still may not fork
    vm.refresh();
    assertSplit(vm, "size 350 is smaller than size 400 verified before");
    serving = other;
    vm.refresh();
    assertEquals(RoomLogStatus.VERIFIED, vm.states().get("lobby").status());
    assertTrue(vm.alerts().isEmpty(), "the split view is of the other server's log");
  }

  @Test
  void aCheckpointKeptWithoutItsKeyStillBindsTheRoom() {
    logs.grow("lobby", 300);
    String note = logs.checkpoint("lobby");
    // a checkpoint's third line is its root in base64 (C2SP tlog-checkpoint)
    String root = HexFormat.of().formatHex(Base64.getDecoder().decode(note.split("\n")[2]));
    RoomTrust before = new RoomTrust(300, root, note, "2026-11-30T00:00:00Z", null);
    h.context.remember(
        RoomLogsViewModel.SNAPSHOT, new RoomLogMemory(Map.of("lobby", before), Map.of()));
    logs.fork("lobby", 700);
    RoomLogsViewModel restarted = new RoomLogsViewModel(h.context, rooms.getReadOnlyProperty());
    restarted.restore();
    rooms.setAll(List.of(summary("lobby")));
    assertSplit(restarted, "size 700 is not an extension of size 300");
  }

  @Test
  void badSignatureIsNotTrusted() {
    logs.grow("lobby", 300);
    logs.resignWith(
        "lobby", NoteSigner.generate("danmaku-ledger/server-log/fixture", new SecureRandom()));
    rooms.setAll(List.of(summary("lobby")));
    RoomLogState s = vm.states().get("lobby");
    assertEquals(RoomLogStatus.BAD_SIGNATURE, s.status());
    assertTrue(s.detail().startsWith("checkpoint: "), s.detail());
    assertEquals(-1, s.size());
    assertTrue(vm.alerts().isEmpty());
  }

  @Test
  void tamperedTilesAreCaught() {
    logs.grow("lobby", 300);
    logs.flipBit("lobby", "tile/0/000");
    rooms.setAll(List.of(summary("lobby")));
    RoomLogState s = vm.states().get("lobby");
    assertEquals(RoomLogStatus.BAD_TILES, s.status());
    assertTrue(s.detail().startsWith("tile/1/000.p/1 differs from the tile rebuilt"), s.detail());
    assertTrue(vm.alerts().isEmpty());
  }

  @Test
  void missingKeysOrLogAreUnavailable() {
    rooms.setAll(List.of(summary("lobby")));
    assertEquals(RoomLogStatus.UNAVAILABLE, vm.states().get("lobby").status());
  }

  private static void assertSplit(RoomLogsViewModel vm, String why) {
    RoomLogState s = vm.states().get("lobby");
    assertEquals(RoomLogStatus.SPLIT_VIEW, s.status(), s.detail());
    assertTrue(s.detail().startsWith(why), s.detail());
    assertEquals(1, vm.alerts().size());
    AdminEvent alert = vm.alerts().get(0);
    assertEquals(AdminEvent.Severity.CRITICAL, alert.severity());
    assertEquals("lobby", alert.room());
    assertEquals("split-view", alert.data().get("kind"));
    assertTrue(alert.message().startsWith("SPLIT VIEW of room lobby"), alert.message());
  }

  private static RoomSummary summary(String room) {
    return new RoomSummary(room, 300, 0, 0, 0, 0, 0);
  }
}
