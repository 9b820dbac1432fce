package dev.danmakuledger.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.danmakuledger.merkle.checkpoint.Checkpoint;
import dev.danmakuledger.merkle.checkpoint.Checkpoints;
import dev.danmakuledger.protocol.DeviceLog;
import dev.danmakuledger.protocol.error.Problem;
import dev.danmakuledger.testkit.TestDevice;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

/**
 * Fuzzes {@code POST /v1/devices/{id}/batches} so that no input gets a 5xx: random bytes, JSON of
 * the wrong shape and types, well-typed batches with random values, validly signed checkpoints over
 * random sizes and roots, and validly signed batches of random leaf bytes. Every answer must be
 * below 500, and every refusal a problem+json.
 */
final class BatchEndpointFuzzIT {
  static Path dir;
  static SyncServer server;
  static Api api;
  static TestDevice signer;
  static TestDevice appender;

  @BeforeContainer
  static void start() throws Exception {
    dir = Files.createTempDirectory("fuzz-server");
    server = SyncServer.start(ServerConfig.builder(dir).maxRecordsPerBatch(50).build());
    api = new Api(server.baseUri(), server.adminToken());
    signer = TestDevice.create("fuzz-signer");
    appender = TestDevice.create("fuzz-appender");
    api.enroll(signer, server.enrollToken());
    api.enroll(appender, server.enrollToken());
  }

  @AfterContainer
  static void stop() throws java.io.IOException {
    server.close();
    try (java.util.stream.Stream<Path> files = Files.walk(dir)) {
      for (Path p : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }

  @Provide
  Arbitrary<String> devices() {
    return Arbitraries.of(
        "fuzz-signer", "fuzz-appender", "unknown-device", "bad%20id", "x".repeat(65));
  }

  @Provide
  Arbitrary<byte[]> bodies() {
    return Arbitraries.oneOf(
        Arbitraries.bytes().array(byte[].class).ofMaxSize(300),
        Arbitraries.strings().ofMaxLength(200).map(s -> s.getBytes(StandardCharsets.UTF_8)),
        shapedJson(),
        signedCheckpoints());
  }

  private static Arbitrary<Object> anyValue() {
    return Arbitraries.oneOf(
        Arbitraries.longs().map(Object.class::cast),
        Arbitraries.strings().ofMaxLength(40).map(Object.class::cast),
        Arbitraries.doubles().map(Object.class::cast),
        Arbitraries.of(true, false).map(Object.class::cast),
        Arbitraries.just(null),
        Arbitraries.just(List.of()).map(Object.class::cast),
        Arbitraries.just(Map.of()).map(Object.class::cast));
  }

  private static Arbitrary<Object> wireRecord() {
    return Combinators.combine(
            Arbitraries.oneOf(
                Arbitraries.longs().between(-2, 5).map(Object.class::cast), anyValue()),
            Arbitraries.oneOf(
                Arbitraries.bytes()
                    .array(byte[].class)
                    .ofMaxSize(120)
                    .map(b -> (Object) Base64.getEncoder().encodeToString(b)),
                anyValue()))
        .as(
            (index, canonical) -> {
              Map<String, Object> m = new LinkedHashMap<>();
              m.put("index", index);
              m.put("canonical", canonical);
              return (Object) m;
            });
  }

  private static Arbitrary<byte[]> shapedJson() {
    return Combinators.combine(
            Arbitraries.oneOf(
                Arbitraries.longs().between(-1, 3).map(Object.class::cast), anyValue()),
            Arbitraries.oneOf(wireRecord().list().ofMaxSize(4).map(Object.class::cast), anyValue()),
            anyValue(),
            Arbitraries.of(true, false))
        .as(
            (oldSize, records, checkpoint, extra) -> {
              Map<String, Object> m = new LinkedHashMap<>();
              m.put("oldSize", oldSize);
              m.put("records", records);
              m.put("checkpoint", checkpoint);
              if (extra) {
                m.put("metadata", Map.of("bloomChecks", -1));
              }
              return json(m);
            });
  }

  private static Arbitrary<byte[]> signedCheckpoints() {
    return Combinators.combine(
            Arbitraries.longs().between(0, 4),
            Arbitraries.bytes().array(byte[].class).ofSize(32),
            Arbitraries.bytes().array(byte[].class).ofMaxSize(60).list().ofMaxSize(3))
        .as(
            (size, root, leaves) -> {
              String cp =
                  Checkpoints.sign(
                      new Checkpoint(DeviceLog.origin("fuzz-signer"), size, root), signer.signer);
              List<Map<String, Object>> records = new ArrayList<>();
              for (int i = 0; i < leaves.size(); i++) {
                records.add(
                    Map.of(
                        "index",
                        (long) i,
                        "canonical",
                        Base64.getEncoder().encodeToString(leaves.get(i))));
              }
              Map<String, Object> m = new LinkedHashMap<>();
              m.put("oldSize", 0L);
              m.put("records", records);
              m.put("checkpoint", cp);
              return json(m);
            });
  }

  private static byte[] json(Object o) {
    try {
      return Api.JSON.writeValueAsBytes(o);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  @Property(tries = 150, seed = "20261130")
  void theBatchEndpointNeverAnswers5xx(
      @ForAll("devices") String device, @ForAll("bodies") byte[] body) {
    check(api.postRaw("/v1/devices/" + device + "/batches", body));
  }

  @Property(tries = 40, seed = "424242")
  void validlySignedBatchesOfRandomLeavesNeverAnswer5xx(@ForAll("leaves") List<byte[]> leaves) {
    Api.Reply r = api.post("/v1/devices/fuzz-appender/batches", appender.batchOfBytes(leaves));
    check(r);
    assertEquals(200, r.status(), r.toString());
  }

  @Provide
  Arbitrary<List<byte[]>> leaves() {
    return Arbitraries.bytes()
        .array(byte[].class)
        .ofMinSize(1)
        .ofMaxSize(200)
        .list()
        .ofMinSize(1)
        .ofMaxSize(5);
  }

  private static void check(Api.Reply r) {
    assertTrue(r.status() < 500, r.toString());
    if (r.status() >= 400) {
      assertEquals(Problem.MEDIA_TYPE, r.contentType(), r.toString());
      assertTrue(r.json().path("code").asText().length() > 0, r.toString());
    }
  }
}
