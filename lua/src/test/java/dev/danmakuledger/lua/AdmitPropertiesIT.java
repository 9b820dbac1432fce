package dev.danmakuledger.lua;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.danmakuledger.lua.testing.RedisFixture;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

/**
 * The admit properties on an embedded Redis this class owns, plus the one that needs to own it
 * (docs/lua-scripts.md, properties): after FLUSHALL and a seed from the true floor, numbering
 * continues without reuse.
 */
class AdmitPropertiesIT extends AdmitPropertiesContract {
  private static RedisFixture redis;
  private static DedupeScripts scripts;
  private static ExecutorService callers;

  @BeforeContainer
  static void start() {
    redis = RedisFixture.embedded();
    scripts = DedupeScripts.standalone(redis.uri(), RetryPolicy.defaults());
    callers = Executors.newFixedThreadPool(4);
  }

  @AfterContainer
  static void stop() {
    callers.shutdownNow();
    scripts.close();
    redis.close();
  }

  @Override
  DedupeScripts scripts() {
    return scripts;
  }

  @Override
  String unique(String base) {
    return redis.namespace(base);
  }

  @Override
  ExecutorService callers() {
    return callers;
  }

  @Property(seed = "1234", tries = 15)
  void afterFlushAllASeedFromTheTrueFloorContinuesWithoutReuse(
      @ForAll @IntRange(min = 1, max = 3) int roomCount,
      @ForAll @IntRange(min = 0, max = 30) int before,
      @ForAll @IntRange(min = 1, max = 30) int after)
      throws Exception {
    List<String> rooms = new ArrayList<>();
    Map<String, Long> floors = new HashMap<>();
    for (int r = 0; r < roomCount; r++) {
      String room = redis.namespace("flush");
      rooms.add(room);
      scripts.seed(room, 0);
      for (int i = 0; i < before; i++) {
        scripts.admit(room, List.of(new AdmitItem("old-" + i, "aa", IDS.incrementAndGet())), TTL);
      }
      floors.put(room, scripts.currentSeq(room));
    }

    redis.flushAll();

    for (String room : rooms) {
      assertEquals(-1, scripts.currentSeq(room));
      String r = room;
      assertThrows(
          NeedSeedException.class,
          () ->
              scripts.admit(r, List.of(new AdmitItem("new-0", "aa", IDS.incrementAndGet())), TTL));
      assertTrue(scripts.seed(room, floors.get(room)) || floors.get(room) == 0);
      List<AdmitItem> fresh = new ArrayList<>();
      for (int i = 0; i < after; i++) {
        fresh.add(new AdmitItem("new-" + i, "aa", IDS.incrementAndGet()));
      }
      List<Admission> got = scripts.admit(room, fresh, TTL);
      for (int i = 0; i < after; i++) {
        assertEquals(floors.get(room) + 1 + i, got.get(i).seq(), "no seq below the floor reused");
      }
    }
  }
}
