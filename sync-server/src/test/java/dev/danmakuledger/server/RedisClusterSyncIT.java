package dev.danmakuledger.server;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.danmakuledger.lua.testing.RedisClusterFixture;
import dev.danmakuledger.protocol.record.DanmakuRecord;
import dev.danmakuledger.protocol.wire.BatchResponse;
import dev.danmakuledger.protocol.wire.Outcome;
import dev.danmakuledger.protocol.wire.RecordOutcome;
import dev.danmakuledger.protocol.wire.RoomMessage;
import dev.danmakuledger.protocol.wire.RoomPage;
import dev.danmakuledger.testkit.TestDevice;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The sync server on a three-master Redis Cluster ({@code --redis-cluster}): rooms hash to
 * different slots, each room's admit runs in its own slot, numbering and dedupe hold.
 */
final class RedisClusterSyncIT {
  @TempDir Path dir;

  @Test
  void batchesSpanningRoomsOnSeveralSlotsAreNumberedAndDeduplicated() {
    try (RedisClusterFixture cluster = RedisClusterFixture.start(Duration.ofSeconds(60));
        SyncServer server =
            SyncServer.start(ServerConfig.builder(dir).redisClusterSeeds(cluster.uris()).build())) {
      Api api = new Api(server.baseUri(), server.adminToken());
      TestDevice d = TestDevice.create("cluster-dev");
      api.enroll(d, server.enrollToken());
      List<String> rooms = List.of("alpha", "bravo", "charlie", "delta", "echo", "foxtrot");
      List<DanmakuRecord> recs = new ArrayList<>();
      for (int i = 0; i < 24; i++) {
        recs.add(d.record(rooms.get(i % rooms.size()), "u" + i, "m" + i));
      }
      recs.add(d.again(recs.get(0)));
      Api.Reply r = api.batch(d, d.batch(recs.toArray(DanmakuRecord[]::new)));
      assertEquals(200, r.status(), r.toString());
      List<RecordOutcome> outcomes = r.as(BatchResponse.class).outcomes();
      assertEquals(Outcome.DUPLICATE, outcomes.get(24).outcome());
      assertEquals(outcomes.get(0).seq(), outcomes.get(24).seq());
      for (String room : rooms) {
        List<Long> seqs =
            api.get("/v1/rooms/" + room + "/messages").as(RoomPage.class).messages().stream()
                .map(RoomMessage::seq)
                .toList();
        assertEquals(List.of(1L, 2L, 3L, 4L), seqs, room);
      }
    }
  }
}
