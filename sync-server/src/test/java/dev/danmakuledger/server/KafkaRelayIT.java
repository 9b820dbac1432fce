package dev.danmakuledger.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.danmakuledger.lua.testing.RedisFixture;
import dev.danmakuledger.protocol.record.DanmakuRecord;
import dev.danmakuledger.protocol.wire.BatchResponse;
import dev.danmakuledger.protocol.wire.admin.AlertList;
import dev.danmakuledger.protocol.wire.admin.RelayLag;
import dev.danmakuledger.protocol.wire.admin.ReviewDecision;
import dev.danmakuledger.protocol.wire.admin.ReviewItem;
import dev.danmakuledger.protocol.wire.admin.ReviewQueue;
import dev.danmakuledger.protocol.wire.admin.RoomList;
import dev.danmakuledger.protocol.wire.admin.RoomSummary;
import dev.danmakuledger.server.kafka.KafkaRelay;
import dev.danmakuledger.server.kafka.KafkaRelayConfig;
import dev.danmakuledger.server.kafka.LocalKafka;
import dev.danmakuledger.server.kafka.RelayFeed;
import dev.danmakuledger.server.kafka.TopicCheck;
import dev.danmakuledger.server.redis.RedisLinks;
import dev.danmakuledger.server.storage.ConfirmedFeed;
import dev.danmakuledger.server.storage.Database;
import dev.danmakuledger.server.storage.StorageUnavailableException;
import dev.danmakuledger.testkit.TestDevice;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Kafka relay against a real broker (docs/kafka.md): one KRaft broker for the class, sync
 * servers on one SQL database and one Redis. Each test has its own topic (which carries every room
 * of the database) and its own rooms; the verdict is the reference consumer's, {@link TopicCheck}:
 * per room, the committed records equal the CONFIRMED rows in cursor order, none twice, none
 * missing.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
final class KafkaRelayIT {
  private static final AtomicInteger IDS = new AtomicInteger();
  private static final Duration SETTLE = Duration.ofSeconds(60);

  @TempDir static Path dir;
  static LocalKafka kafka;
  static RedisFixture redis;
  static String jdbcUrl;
  static Database db;
  static ConfirmedFeed feed;

  @BeforeAll
  static void start() {
    jdbcUrl =
        "jdbc:h2:file:"
            + dir.resolve("shared-db").toAbsolutePath()
            + ";MODE=MySQL;DATABASE_TO_LOWER=TRUE;AUTO_SERVER=TRUE";
    // opened (and migrated) once, before the broker's JVM competes for the CPU, and kept open:
    // the servers of the tests attach to it
    db = patiently(() -> Database.open(jdbcUrl, null, null));
    feed = new ConfirmedFeed(db);
    redis = RedisFixture.embedded();
    kafka = LocalKafka.start(dir.resolve("kafka"), 1);
  }

  @AfterAll
  static void stop() {
    if (db != null) {
      db.close();
    }
    if (redis != null) {
      redis.close();
    }
    if (kafka != null) {
      kafka.close();
    }
  }

  static String topic() {
    return "confirmed-" + IDS.incrementAndGet();
  }

  static KafkaRelayConfig relay(String topic, int shards) {
    return new KafkaRelayConfig(
        kafka.bootstrap(), topic, shards, Duration.ofSeconds(2), Duration.ofMillis(20), 500);
  }

  static SyncServer server(KafkaRelayConfig relay) {
    return patiently(
        () ->
            SyncServer.start(
                ServerConfig.builder(dir.resolve("data"))
                    .redisUri(redis.uri())
                    .jdbc(jdbcUrl, null, null)
                    .kafka(relay)
                    .build()));
  }

  /**
   * Runs {@code start}, again (up to three times) when SQL gave no connection within the pool's
   * timeout: on a machine loaded far beyond its cores the H2 file opens slowly; that is not what
   * these tests are about.
   */
  static <T> T patiently(Supplier<T> start) {
    for (int attempt = 1; ; attempt++) {
      try {
        return start.get();
      } catch (StorageUnavailableException e) {
        if (attempt == 3) {
          throw e;
        }
      }
    }
  }

  static TestDevice enroll(Api api, SyncServer s) {
    TestDevice d = TestDevice.create("kafka-" + IDS.incrementAndGet());
    api.enroll(d, s.enrollToken());
    return d;
  }

  /** Syncs the texts as one batch each of {@code per}; returns the responses. */
  static List<BatchResponse> post(Api api, TestDevice d, String room, List<String> texts, int per) {
    List<BatchResponse> out = new ArrayList<>();
    for (int sent = 0; sent < texts.size(); sent += per) {
      List<DanmakuRecord> records = new ArrayList<>();
      for (String t : texts.subList(sent, Math.min(texts.size(), sent + per))) {
        records.add(d.record(room, "viewer", t));
      }
      Api.Reply r = api.batch(d, d.batch(records.toArray(new DanmakuRecord[0])));
      assertEquals(200, r.status(), r.toString());
      out.add(r.as(BatchResponse.class));
    }
    return out;
  }

  static List<String> texts(String prefix, int n) {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      out.add(prefix + " " + i);
    }
    return out;
  }

  /** Checks the topic until it holds every CONFIRMED row (or the time is up); the last report. */
  static TopicCheck.Report settled(String topic) throws InterruptedException {
    long deadline = System.nanoTime() + SETTLE.toNanos();
    TopicCheck.Report r;
    while (true) {
      r = TopicCheck.check(kafka.bootstrap(), topic, feed, Duration.ofSeconds(30));
      assertTrue(r.ok(), r.summary());
      if (r.complete() || System.nanoTime() > deadline) {
        return r;
      }
      Thread.sleep(200);
    }
  }

  /** The committed records of {@code topic}: room to the texts of its records, in order. */
  static Map<String, List<String>> texts(String topic) {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrap());
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    Map<String, List<String>> out = new HashMap<>();
    try (KafkaConsumer<String, String> c =
        new KafkaConsumer<>(p, new StringDeserializer(), new StringDeserializer())) {
      List<TopicPartition> parts = new ArrayList<>();
      for (PartitionInfo pi : c.partitionsFor(topic)) {
        parts.add(new TopicPartition(topic, pi.partition()));
      }
      c.assign(parts);
      c.seekToBeginning(parts);
      Map<TopicPartition, Long> end = c.endOffsets(parts);
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (parts.stream().anyMatch(tp -> c.position(tp) < end.get(tp))
          && System.nanoTime() < deadline) {
        for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(200))) {
          out.computeIfAbsent(r.key(), k -> new ArrayList<>())
              .add(Api.JSON.readTree(r.value()).get("text").asText());
        }
      }
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
    return out;
  }

  @Test
  void everyConfirmedMessageIsInTheTopicOnceInOrderAcrossRelayRestarts() throws Exception {
    String topic = topic();
    String room = "restarts-" + IDS.incrementAndGet();
    SyncServer first = server(relay(topic, 2));
    Api api = new Api(first.baseUri(), first.adminToken());
    TestDevice d = enroll(api, first);
    post(api, d, room, texts("before", 60), 7);
    first.close();
    SyncServer second = server(relay(topic, 2));
    Api api2 = new Api(second.baseUri(), second.adminToken());
    post(api2, d, room, texts("after", 45), 9);
    try {
      TopicCheck.Report r = settled(topic);
      assertTrue(r.complete(), r.summary());
      assertEquals(105, texts(topic).get(room).size(), r.summary());
      List<String> want = new ArrayList<>(texts("before", 60));
      want.addAll(texts("after", 45));
      assertEquals(want, texts(topic).get(room));
    } finally {
      second.close();
    }
  }

  @Test
  void twoInstancesCompeteForOneShardAndTheSecondResumesWhereTheFirstStopped() throws Exception {
    String topic = topic();
    String room = "compete-" + IDS.incrementAndGet();
    SyncServer a = server(relay(topic, 1));
    SyncServer b = server(relay(topic, 1));
    try {
      Api apiA = new Api(a.baseUri(), a.adminToken());
      Api apiB = new Api(b.baseUri(), b.adminToken());
      TestDevice da = enroll(apiA, a);
      TestDevice db = enroll(apiB, b);
      for (int round = 0; round < 5; round++) {
        post(apiA, da, room, texts("a" + round, 12), 4);
        post(apiB, db, room, texts("b" + round, 12), 6);
      }
      TopicCheck.Report r = settled(topic);
      assertTrue(r.complete(), r.summary());
      assertEquals(120, texts(topic).get(room).size(), r.summary());
      assertTrue(
          (a.kafkaPublished() == 0) != (b.kafkaPublished() == 0),
          "one instance runs the shard: " + a.kafkaPublished() + ", " + b.kafkaPublished());
      SyncServer owner = a.kafkaPublished() > 0 ? a : b;
      SyncServer other = owner == a ? b : a;
      Api apiOther = owner == a ? apiB : apiA;
      TestDevice dOther = owner == a ? db : da;
      owner.close();
      post(apiOther, dOther, room, texts("later", 30), 5);
      r = settled(topic);
      assertTrue(r.complete(), r.summary());
      assertEquals(150, texts(topic).get(room).size(), r.summary());
      assertTrue(other.kafkaPublished() > 0, "the new owner runs the shard");
    } finally {
      a.close();
      b.close();
    }
  }

  @Test
  void aFormerOwnerMidTransactionIsFencedAndItsRecordsAreNeverRead() throws Exception {
    String topic = topic();
    String room = "zombie-" + IDS.incrementAndGet();
    SyncServer first = server(relay(topic, 1));
    Api api = new Api(first.baseUri(), first.adminToken());
    TestDevice d = enroll(api, first);
    post(api, d, room, texts("one", 20), 5);
    assertTrue(settled(topic).complete());
    first.close();

    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrap());
    p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "danmaku-relay." + topic + ".0");
    try (KafkaProducer<String, String> zombie =
        new KafkaProducer<>(p, new StringSerializer(), new StringSerializer())) {
      zombie.initTransactions();
      zombie.beginTransaction();
      ProducerRecord<String, String> bogus =
          new ProducerRecord<>(topic, room, "{\"text\":\"never\"}");
      bogus.headers().add("cursor", "21".getBytes(StandardCharsets.UTF_8));
      bogus.headers().add("seq", "21".getBytes(StandardCharsets.UTF_8));
      zombie.send(bogus).get(30, TimeUnit.SECONDS);

      SyncServer second = server(relay(topic, 1));
      try {
        Api api2 = new Api(second.baseUri(), second.adminToken());
        post(api2, d, room, texts("two", 20), 5);
        TopicCheck.Report r = settled(topic);
        assertTrue(r.complete(), r.summary());
        assertEquals(40, texts(topic).get(room).size(), r.summary());
        assertThrows(KafkaException.class, zombie::commitTransaction);
        r = TopicCheck.check(kafka.bootstrap(), topic, feed, Duration.ofSeconds(30));
        assertTrue(r.complete(), r.summary());
        assertFalse(texts(topic).get(room).contains("never"));
      } finally {
        second.close();
      }
    }
  }

  @Test
  void heldMessagesAreRelayedWhenApprovedAndARoomAllHeldHasNoRecord() throws Exception {
    String topic = topic();
    String mixed = "review-" + IDS.incrementAndGet();
    String held = "held-" + IDS.incrementAndGet();
    SyncServer s = server(relay(topic, 2));
    try {
      Api api = new Api(s.baseUri(), s.adminToken());
      TestDevice d = enroll(api, s);
      List<String> mixedTexts = new ArrayList<>();
      for (int i = 0; i < 12; i++) {
        mixedTexts.add(i % 3 == 0 ? "see https://example.org/" + i : "plain " + i);
      }
      post(api, d, mixed, mixedTexts, 4);
      post(api, d, held, List.of("https://example.org/a", "www.example.org/b"), 2);
      TopicCheck.Report r = settled(topic);
      assertTrue(r.complete(), r.summary());
      assertEquals(8, texts(topic).get(mixed).size(), r.summary());
      assertEquals(null, texts(topic).get(held));

      ReviewItem item =
          api.admin("/admin/review?limit=1000").as(ReviewQueue.class).items().stream()
              .filter(i -> i.room().equals(mixed) && i.text().endsWith("/3"))
              .findFirst()
              .orElseThrow();
      Api.Reply approved =
          api.adminPost(
              "/admin/review/" + item.messageId(),
              new ReviewDecision("APPROVE", item.version(), null));
      assertEquals(200, approved.status(), approved.toString());
      ReviewItem heldItem =
          api.admin("/admin/review?limit=1000").as(ReviewQueue.class).items().stream()
              .filter(i -> i.room().equals(held))
              .findFirst()
              .orElseThrow();
      assertEquals(
          200,
          api.adminPost(
                  "/admin/review/" + heldItem.messageId(),
                  new ReviewDecision("APPROVE", heldItem.version(), null))
              .status());

      r = settled(topic);
      assertTrue(r.complete(), r.summary());
      assertEquals(9, texts(topic).get(mixed).size(), r.summary());
      List<String> relayed = texts(topic).get(mixed);
      assertEquals("see https://example.org/3", relayed.get(relayed.size() - 1));
      assertEquals(List.of(heldItem.text()), texts(topic).get(held));
      String metrics = api.get("/metrics").body();
      assertTrue(metrics.contains("danmaku_kafka_relay_published_total"), metrics);
      assertTrue(metrics.contains("danmaku_kafka_relay_behind"), metrics);

      RoomList rooms = caughtUp(api);
      assertEquals(new RelayLag(topic, 2, 2, true, 0, 0), rooms.relay(), rooms.toString());
      for (String room : List.of(mixed, held)) {
        RoomSummary summary =
            rooms.rooms().stream().filter(x -> x.room().equals(room)).findFirst().orElseThrow();
        assertEquals(new RoomSummary.Relay(0, 0), summary.relay(), summary.toString());
      }
    } finally {
      s.close();
    }
  }

  @Test
  void theRelayWakesOnItsOwnCommitsInsteadOfWaitingForItsPoll() throws Exception {
    String topic = topic();
    String room = "wake-" + IDS.incrementAndGet();
    // a poll far longer than the time each round is given below: only a wake can meet it
    SyncServer s =
        server(
            new KafkaRelayConfig(
                kafka.bootstrap(), topic, 1, Duration.ofSeconds(2), Duration.ofSeconds(10), 500));
    try {
      Api api = new Api(s.baseUri(), s.adminToken());
      TestDevice d = enroll(api, s);
      assertTrue(settled(topic).complete());
      for (int round = 0; round < 3; round++) {
        long started = System.nanoTime();
        post(api, d, room, texts("w" + round, 4), 4);
        TopicCheck.Report r = TopicCheck.check(kafka.bootstrap(), topic, feed, SETTLE);
        while (!r.complete() && System.nanoTime() - started < TimeUnit.SECONDS.toNanos(4)) {
          Thread.sleep(100);
          r = TopicCheck.check(kafka.bootstrap(), topic, feed, SETTLE);
        }
        assertTrue(r.complete(), "round " + round + " not relayed within 4 s: " + r.summary());
      }
      assertEquals(12, texts(topic).get(room).size());

      // an approval: its cursor is not known to the commit's listener; the relay reads the head
      post(api, d, room, List.of("see https://example.org/held"), 1);
      ReviewItem item =
          api.admin("/admin/review?limit=1000").as(ReviewQueue.class).items().stream()
              .filter(i -> i.room().equals(room))
              .findFirst()
              .orElseThrow();
      long started = System.nanoTime();
      assertEquals(
          200,
          api.adminPost(
                  "/admin/review/" + item.messageId(),
                  new ReviewDecision("APPROVE", item.version(), null))
              .status());
      while (texts(topic).get(room).size() < 13
          && System.nanoTime() - started < TimeUnit.SECONDS.toNanos(4)) {
        Thread.sleep(100);
      }
      assertEquals("see https://example.org/held", texts(topic).get(room).get(12));
    } finally {
      s.close();
    }
  }

  /** A room that shard {@code shard} of {@code shards} relays (docs/kafka.md, "Exactly once"). */
  static String roomOfShard(String prefix, int shard, int shards) {
    while (true) {
      String room = prefix + "-" + IDS.incrementAndGet();
      if (Math.floorMod(room.hashCode(), shards) == shard) {
        return room;
      }
    }
  }

  @Test
  void aShardPublishesWhileAnotherShardIsStalled() throws Exception {
    String topic = topic();
    String stalled = roomOfShard("stalled", 0, 2);
    String flowing = roomOfShard("flowing", 1, 2);
    SyncServer filler = server(null);
    try {
      Api api = new Api(filler.baseUri(), filler.adminToken());
      TestDevice d = enroll(api, filler);
      post(api, d, stalled, texts("s", 20), 5);
      post(api, d, flowing, texts("f", 20), 5);
    } finally {
      filler.close();
    }
    CountDownLatch reading = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    RelayFeed sql = RelayFeed.of(feed);
    RelayFeed stalling =
        new RelayFeed() {
          @Override
          public Map<String, Long> heads() {
            return sql.heads();
          }

          @Override
          public Map<String, Long> heads(List<String> rooms) {
            return sql.heads(rooms);
          }

          @Override
          public List<ConfirmedFeed.Confirmed> after(String room, long afterCursor, int limit) {
            if (room.equals(stalled)) {
              reading.countDown();
              try {
                release.await(2, TimeUnit.MINUTES);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            }
            return sql.after(room, afterCursor, limit);
          }
        };
    try (RedisLinks links = RedisLinks.standalone(redis.uri());
        KafkaRelay relay =
            new KafkaRelay(
                relay(topic, 2), stalling, links::shared, "stall", m -> {}, Clock.systemUTC())) {
      relay.start();
      assertTrue(reading.await(60, TimeUnit.SECONDS), "shard 0 reads the stalled room");
      long deadline = System.nanoTime() + SETTLE.toNanos();
      Map<String, List<String>> seen = texts(topic);
      while (seen.getOrDefault(flowing, List.of()).size() < 20 && System.nanoTime() < deadline) {
        Thread.sleep(100);
        seen = texts(topic);
      }
      assertEquals(texts("f", 20), seen.get(flowing), "shard 1 relays while shard 0 is stalled");
      assertEquals(null, seen.get(stalled), "nothing of the stalled shard's transaction");
      release.countDown();
      TopicCheck.Report r = settled(topic);
      assertTrue(r.complete(), r.summary());
      assertEquals(texts("s", 20), texts(topic).get(stalled));
    } finally {
      release.countDown();
    }
  }

  @Test
  void aCommitOfAnotherInstanceIsRelayedByTheReadOfEveryRoomsHead() throws Exception {
    String topic = topic();
    String room = "elsewhere-" + IDS.incrementAndGet();
    // the relaying instance hears nothing of the other's commits: only its read of every room's
    // head, once a second here, finds them
    SyncServer relaying =
        server(
            new KafkaRelayConfig(
                kafka.bootstrap(), topic, 2, Duration.ofSeconds(2), Duration.ofSeconds(1), 500));
    SyncServer other = server(null);
    try {
      assertTrue(settled(topic).complete());
      long before = relaying.kafkaPublished();
      Api api = new Api(other.baseUri(), other.adminToken());
      TestDevice d = enroll(api, other);
      post(api, d, room, texts("o", 30), 6);
      TopicCheck.Report r = settled(topic);
      assertTrue(r.complete(), r.summary());
      assertEquals(texts("o", 30), texts(topic).get(room));
      assertEquals(before + 30, relaying.kafkaPublished());
    } finally {
      other.close();
      relaying.close();
    }
  }

  @Test
  void aRelayThatCannotReachKafkaRaisesOneAlertPerEpisodeWhileIngestGoesOn() throws Exception {
    String dead;
    try (java.net.ServerSocket free =
        new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      dead = "127.0.0.1:" + free.getLocalPort();
    }
    SyncServer s =
        server(
            new KafkaRelayConfig(
                dead, topic(), 1, Duration.ofSeconds(2), Duration.ofMillis(20), 500));
    try {
      Api api = new Api(s.baseUri(), s.adminToken());
      TestDevice d = enroll(api, s);
      List<BatchResponse> accepted =
          post(api, d, "dark-" + IDS.incrementAndGet(), texts("x", 10), 5);
      assertEquals(2, accepted.size());
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
      while (unreachableAlerts(api) == 0 && System.nanoTime() < deadline) {
        Thread.sleep(250);
      }
      assertEquals(1, unreachableAlerts(api));
      long failures = failures(api);
      while (failures(api) < failures + 2 && System.nanoTime() < deadline) {
        Thread.sleep(250);
      }
      assertTrue(failures(api) >= failures + 2, "the relay kept failing");
      assertEquals(1, unreachableAlerts(api), "one alert for the episode");
      assertTrue(api.get("/metrics").body().contains("danmaku_kafka_relay_reachable 0.0"));
      RoomList rooms = api.admin("/admin/rooms").as(RoomList.class);
      while ((rooms.relay() == null || rooms.relay().reachable()) && System.nanoTime() < deadline) {
        Thread.sleep(250);
        rooms = api.admin("/admin/rooms").as(RoomList.class);
      }
      assertFalse(rooms.relay().reachable(), "the rooms list shows the relay cut off: " + rooms);
    } finally {
      s.close();
    }
  }

  /** The rooms list once the relay reports every shard with nothing behind (or after 30 s). */
  static RoomList caughtUp(Api api) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    RoomList rooms = api.admin("/admin/rooms").as(RoomList.class);
    while ((rooms.relay() == null
            || rooms.relay().behind() > 0
            || rooms.relay().reporting() < rooms.relay().shards())
        && System.nanoTime() < deadline) {
      Thread.sleep(250);
      rooms = api.admin("/admin/rooms").as(RoomList.class);
    }
    return rooms;
  }

  static long unreachableAlerts(Api api) {
    return api.admin("/admin/alerts?limit=1000").as(AlertList.class).alerts().stream()
        .filter(a -> "KAFKA_UNREACHABLE".equals(a.data().get("kind")))
        .count();
  }

  static long failures(Api api) {
    for (String line : api.get("/metrics").body().split("\n")) {
      if (line.startsWith("danmaku_kafka_relay_failures_total")) {
        return (long) Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
      }
    }
    return -1;
  }
}
