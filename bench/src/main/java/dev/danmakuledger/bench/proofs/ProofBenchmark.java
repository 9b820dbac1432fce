package dev.danmakuledger.bench.proofs;

import dev.danmakuledger.bench.ingest.Dirs;
import dev.danmakuledger.bench.ingest.FreshDatabase;
import dev.danmakuledger.bench.ingest.Latencies;
import dev.danmakuledger.bench.ingest.LedgerClient;
import dev.danmakuledger.bench.ingest.MessageStream;
import dev.danmakuledger.bench.ingest.RedisKeys;
import dev.danmakuledger.bench.ingest.SimulatedDevice;
import dev.danmakuledger.bench.report.BenchResult;
import dev.danmakuledger.merkle.VerificationException;
import dev.danmakuledger.merkle.proof.InclusionProof;
import dev.danmakuledger.protocol.wire.BatchResponse;
import dev.danmakuledger.protocol.wire.InclusionProofResponse;
import dev.danmakuledger.server.ServerConfig;
import dev.danmakuledger.server.SyncServer;
import dev.danmakuledger.server.redis.EmbeddedRedis;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.UUID;

/**
 * {@code bin/bench proofs} (docs/benchmarks.md): inclusion proofs (RFC 9162 §2.1.3) served by the
 * sync server for one large device log, through {@code GET /v1/devices/{id}/proofs/inclusion} over
 * HTTP, each proof verified against the device's root. The baseline is what a server without stored
 * subtree hashes must do: recompute the proof from all leaf hashes of the same log (in memory, so
 * it is a lower bound for that approach).
 */
public final class ProofBenchmark {
  private static final HexFormat HEX = HexFormat.of();

  /** Name of the baseline row. */
  public static final String BASELINE = "recompute-from-leaves";

  private ProofBenchmark() {}

  /**
   * What to run.
   *
   * @param leaves size of the device log, >= 2
   * @param samples proofs fetched from the server, >= 1
   * @param baselineSamples proofs recomputed from all leaves, >= 1
   * @param redisUri Redis for the server, or null for embedded
   * @param jdbcUrl MariaDB/MySQL server URL (fresh database), or null for H2
   */
  public record Options(
      long leaves, int samples, int baselineSamples, String redisUri, String jdbcUrl) {
    public Options {
      if (leaves < 2 || leaves > 100_000_000) {
        throw new IllegalArgumentException("leaves: got " + leaves + ", want 2..100000000");
      }
      if (jdbcUrl != null) {
        FreshDatabase.requireServerUrl(jdbcUrl);
      }
      if (samples < 1 || baselineSamples < 1) {
        throw new IllegalArgumentException(
            "samples: got " + samples + " and " + baselineSamples + ", want >= 1 each");
      }
    }
  }

  /** Fills the log, measures both paths and returns the rows (p50 and p99, lower is better). */
  public static List<BenchResult> run(Options o, PrintStream log) throws Exception {
    String runId = UUID.randomUUID().toString().replace("-", "").substring(0, 8);
    Path tmp = Files.createTempDirectory("danmaku-bench-proofs-");
    EmbeddedRedis embedded = o.redisUri() == null ? EmbeddedRedis.start() : null;
    String redisUri = embedded == null ? o.redisUri() : embedded.uri();
    try (FreshDatabase db = FreshDatabase.create(o.jdbcUrl(), tmp.resolve("server"))) {
      ServerConfig config =
          ServerConfig.builder(tmp.resolve("server"))
              .redisUri(redisUri)
              .jdbc(db.embedded() ? null : db.url(), null, null)
              .reviewRule(null)
              .build();
      try (SyncServer server = SyncServer.start(config)) {
        LedgerClient client = new LedgerClient(server.baseUri(), Duration.ofSeconds(60));
        SimulatedDevice device = SimulatedDevice.create("proofs-" + runId, new SecureRandom());
        if (!client
            .enroll(device.deviceId(), device.publicKeyBase64(), server.enrollToken())
            .ok()) {
          throw new IOException("enrolment of " + device.deviceId() + " refused");
        }
        byte[][] leaves = fill(client, device, o.leaves(), runId, log);
        byte[] root = device.root();
        Latencies served = serve(client, device.deviceId(), leaves, root, o.samples());
        Latencies recomputed = recompute(leaves, root, o.baselineSamples());
        String where =
            String.format(
                Locale.ROOT,
                "%,d-leaf log on %s; served = HTTP GET /v1/devices/{id}/proofs/inclusion, each"
                    + " verified; %s = in-memory recomputation from all %,d leaf hashes;"
                    + " ratio = ours/baseline, lower is better",
                o.leaves(),
                db.describe(),
                BASELINE,
                o.leaves());
        List<BenchResult> rows = new ArrayList<>();
        for (double p : new double[] {50, 99}) {
          double ours = served.percentileMs(p);
          double base = recomputed.percentileMs(p);
          rows.add(
              new BenchResult(
                  "proofs",
                  String.format(Locale.ROOT, "p%.0f ms", p),
                  ours,
                  BASELINE,
                  base,
                  ours / base,
                  served.percentileMs(99),
                  where
                      + String.format(
                          Locale.ROOT,
                          "; %d served, %d recomputed samples",
                          served.count(),
                          recomputed.count())));
        }
        return rows;
      }
    } finally {
      if (embedded != null) {
        embedded.close();
      } else {
        RedisKeys.deleteRooms(redisUri, "p" + runId + "-");
      }
      Dirs.deleteTree(tmp);
    }
  }

  private static byte[][] fill(
      LedgerClient client, SimulatedDevice device, long n, String runId, PrintStream log)
      throws IOException, InterruptedException {
    byte[][] leaves = new byte[Math.toIntExact(n)][];
    List<String> rooms = new ArrayList<>();
    for (int r = 0; r < 16; r++) {
      rooms.add("p" + runId + "-r" + r);
    }
    MessageStream stream = new MessageStream(device.deviceId(), rooms, 0, 42, 1_764_000_000_000L);
    int[] next = {0};
    long start = System.nanoTime();
    long lastReport = start;
    while (next[0] < n) {
      int size = (int) Math.min(1000, n - next[0]);
      LedgerClient.Reply<BatchResponse> r =
          client.postBatch(
              device.deviceId(),
              device.append(stream.nextBatch(size), leaf -> leaves[next[0]++] = leaf));
      if (!r.ok()) {
        throw new IOException("filling the log: batch refused with " + r.code());
      }
      long now = System.nanoTime();
      if (now - lastReport > 10_000_000_000L) {
        lastReport = now;
        log.printf(
            Locale.ROOT,
            "proofs: %,d of %,d leaves stored (%.0f/s)%n",
            next[0],
            n,
            next[0] / ((now - start) / 1e9));
      }
    }
    log.printf(
        Locale.ROOT, "proofs: %,d leaves stored in %.1f s%n", n, (System.nanoTime() - start) / 1e9);
    return leaves;
  }

  private static Latencies serve(
      LedgerClient client, String deviceId, byte[][] leaves, byte[] root, int samples)
      throws IOException, InterruptedException, VerificationException {
    SplittableRandom random = new SplittableRandom(7);
    for (int i = 0; i < Math.min(200, samples); i++) {
      client.inclusion(deviceId, random.nextInt(leaves.length));
    }
    Latencies lat = new Latencies();
    for (int i = 0; i < samples; i++) {
      int index = random.nextInt(leaves.length);
      long t0 = System.nanoTime();
      LedgerClient.Reply<InclusionProofResponse> r = client.inclusion(deviceId, index);
      lat.add(System.nanoTime() - t0);
      if (!r.ok()) {
        throw new IOException("proof for index " + index + ": got " + r.code() + ", want 200");
      }
      InclusionProofResponse p = r.body();
      if (p.size() != leaves.length
          || !Arrays.equals(HEX.parseHex(p.leafHashHex()), leaves[index])) {
        throw new IOException(
            "proof for index " + index + ": got size " + p.size() + " and another leaf hash");
      }
      InclusionProof.verify(
          index, p.size(), leaves[index], p.proofHex().stream().map(HEX::parseHex).toList(), root);
    }
    return lat;
  }

  private static Latencies recompute(byte[][] leaves, byte[] root, int samples)
      throws VerificationException {
    SplittableRandom random = new SplittableRandom(11);
    Latencies lat = new Latencies();
    RecomputedProofs.inclusion(leaves, 0);
    for (int i = 0; i < samples; i++) {
      int index = random.nextInt(leaves.length);
      long t0 = System.nanoTime();
      List<byte[]> proof = RecomputedProofs.inclusion(leaves, index);
      lat.add(System.nanoTime() - t0);
      InclusionProof.verify(index, leaves.length, leaves[index], proof, root);
    }
    return lat;
  }
}
