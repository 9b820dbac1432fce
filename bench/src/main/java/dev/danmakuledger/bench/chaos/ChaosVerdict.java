package dev.danmakuledger.bench.chaos;

import dev.danmakuledger.bench.ingest.LedgerClient;
import dev.danmakuledger.edge.config.AgentConfig;
import dev.danmakuledger.edge.keys.DeviceIdentity;
import dev.danmakuledger.edge.store.Durability;
import dev.danmakuledger.edge.store.EdgeStore;
import dev.danmakuledger.edge.sync.Backoff;
import dev.danmakuledger.edge.sync.ServerLink;
import dev.danmakuledger.edge.sync.Sleeper;
import dev.danmakuledger.edge.sync.SyncClient;
import dev.danmakuledger.edge.sync.SyncReport;
import dev.danmakuledger.edge.sync.SyncStoppedException;
import dev.danmakuledger.edge.sync.Syncer;
import dev.danmakuledger.edge.verify.LogVerifier;
import dev.danmakuledger.edge.verify.VerifyReport;
import dev.danmakuledger.merkle.checkpoint.NoteVerifier;
import dev.danmakuledger.merkle.proof.InclusionProof;
import dev.danmakuledger.protocol.wire.InclusionProofResponse;
import dev.danmakuledger.protocol.wire.LogState;
import dev.danmakuledger.protocol.wire.RoomMessage;
import dev.danmakuledger.protocol.wire.RoomPage;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import okhttp3.OkHttpClient;

/**
 * The verdict of a chaos run, once the faults stopped: every agent is stopped and its store synced
 * to the end directly to the server; then what the agents acknowledged and hold is checked against
 * what the server stores (docs/benchmarks.md, chaos): no acknowledged capture lost, nothing stored
 * twice, every room numbered 1..max, every device root and inclusion proof verified.
 */
final class ChaosVerdict {
  private static final HexFormat HEX = HexFormat.of();

  /** The checks and the totals the report prints. */
  record Verdict(List<ChaosHarness.Check> checks, Map<String, Long> totals) {
    Verdict {
      checks = List.copyOf(checks);
    }
  }

  private final ChaosProcesses processes;
  private final List<String> rooms;
  private final Random random;
  private final long seed;

  /**
   * @param random the run's random source (the final syncs' backoff jitter draws from it)
   * @param seed the run's seed, for the choice of inclusion proofs
   */
  ChaosVerdict(ChaosProcesses processes, List<String> rooms, Random random, long seed) {
    this.processes = processes;
    this.rooms = List.copyOf(rooms);
    this.random = random;
    this.seed = seed;
  }

  /** Stops the agents, syncs every store to the end and checks the run. */
  Verdict judge() throws Exception {
    for (Child a : processes.agents()) {
      a.kill();
    }
    Child server = processes.server();
    server.signal(false);
    if (!server.alive()) {
      server.start();
    }
    processes.waitReady(Duration.ofSeconds(90));
    List<String> deviceIds = processes.deviceIds();
    List<Path> agentDirs = processes.agentDirs();
    Map<String, Long> totals = new LinkedHashMap<>();
    List<ChaosHarness.Check> checks = new ArrayList<>();
    Map<String, Set<String>> captured = new LinkedHashMap<>();
    Map<String, String> roots = new HashMap<>();
    Map<String, Long> sizes = new HashMap<>();
    long ackedTotal = 0;
    List<String> lostAcks = new ArrayList<>();
    List<String> unsynced = new ArrayList<>();
    List<String> badLogs = new ArrayList<>();
    for (int a = 0; a < agentDirs.size(); a++) {
      String id = deviceIds.get(a);
      Path dir = agentDirs.get(a);
      try (EdgeStore store = EdgeStore.open(EdgeStore.fileIn(dir), Durability.FULL)) {
        String refusal = finalSync(dir, store);
        if (refusal != null) {
          unsynced.add(id + ": " + refusal);
        }
        Set<String> keys = new HashSet<>(store.keysFrom(0));
        captured.put(id, keys);
        sizes.put(id, store.recordCount());
        DeviceIdentity identity = DeviceIdentity.load(dir, AgentConfig.load(dir).deviceId());
        VerifyReport report =
            new LogVerifier(id, NoteVerifier.parse(identity.signer().verifierKey())).verify(store);
        if (!report.ok()) {
          badLogs.add(id + ": " + report.problem());
        }
        roots.put(id, report.rootHex());
        Set<String> acked = readAcked(dir.resolve(ChaosAgent.ACKED_LOG));
        ackedTotal += acked.size();
        for (String k : acked) {
          if (!keys.contains(k)) {
            lostAcks.add(id + " " + k);
          }
        }
      }
    }
    long capturedTotal = captured.values().stream().mapToLong(Set::size).sum();
    totals.put("acked keys (agents' acked.log)", ackedTotal);
    totals.put("captured records (agents' stores)", capturedTotal);
    checks.add(
        new ChaosHarness.Check(
            "every acknowledged capture is in its agent's store",
            lostAcks.isEmpty(),
            lostAcks.isEmpty() ? ackedTotal + " acked keys found" : "missing: " + first(lostAcks)));
    checks.add(
        new ChaosHarness.Check(
            "every agent synced to the end",
            unsynced.isEmpty(),
            unsynced.isEmpty() ? "all " + agentDirs.size() + " logs synced" : first(unsynced)));
    checks.add(
        new ChaosHarness.Check(
            "every agent log passes verify",
            badLogs.isEmpty(),
            badLogs.isEmpty() ? "signatures and roots recomputed" : first(badLogs)));

    Map<String, List<RoomMessage>> byRoom = readRooms();
    Map<String, Integer> keyCount = new HashMap<>();
    Map<String, Set<String>> storedByDevice = new HashMap<>();
    List<String> numbering = new ArrayList<>();
    long storedTotal = 0;
    long tombstones = 0;
    for (Map.Entry<String, List<RoomMessage>> e : byRoom.entrySet()) {
      TreeSet<Long> seqs = new TreeSet<>();
      for (RoomMessage m : e.getValue()) {
        if (!seqs.add(m.seq())) {
          numbering.add(e.getKey() + " seq " + m.seq() + " twice");
        }
        if ("TOMBSTONE".equals(m.status())) {
          tombstones++;
          continue;
        }
        storedTotal++;
        keyCount.merge(m.idempotencyKey(), 1, Integer::sum);
        storedByDevice.computeIfAbsent(m.deviceId(), d -> new HashSet<>()).add(m.idempotencyKey());
      }
      if (!seqs.isEmpty() && (seqs.first() != 1 || seqs.last() != seqs.size())) {
        numbering.add(
            e.getKey()
                + ": "
                + seqs.size()
                + " numbers between "
                + seqs.first()
                + " and "
                + seqs.last());
      }
    }
    long duplicates = keyCount.values().stream().filter(n -> n > 1).count();
    totals.put("stored messages (server rooms)", storedTotal);
    totals.put("tombstones (numbers burned, accounted for)", tombstones);
    totals.put("duplicates stored", duplicates);
    List<String> mismatch = new ArrayList<>();
    for (String id : deviceIds) {
      Set<String> want = captured.get(id);
      Set<String> got = storedByDevice.getOrDefault(id, Set.of());
      if (!want.equals(got)) {
        Set<String> missing = new HashSet<>(want);
        missing.removeAll(got);
        Set<String> extra = new HashSet<>(got);
        extra.removeAll(want);
        mismatch.add(
            id + ": " + missing.size() + " captured but not stored, " + extra.size() + " extra");
      }
    }
    checks.add(
        new ChaosHarness.Check(
            "captured-and-acknowledged on agents == stored on the server",
            mismatch.isEmpty() && capturedTotal == storedTotal,
            mismatch.isEmpty()
                ? capturedTotal + " captured, " + storedTotal + " stored"
                : first(mismatch)));
    checks.add(
        new ChaosHarness.Check(
            "duplicates stored == 0", duplicates == 0, duplicates + " keys stored more than once"));
    checks.add(
        new ChaosHarness.Check(
            "per-room numbering complete (1..max, each number once)",
            numbering.isEmpty(),
            numbering.isEmpty() ? byRoom.size() + " rooms" : first(numbering)));
    checks.add(rootsCheck(roots, sizes));
    return new Verdict(checks, totals);
  }

  /**
   * Syncs a stopped agent's store to the end with the agent's own sync client, directly to the
   * server; returns null when complete, else why not.
   */
  private String finalSync(Path dir, EdgeStore store) throws Exception {
    DeviceIdentity identity = DeviceIdentity.load(dir, AgentConfig.load(dir).deviceId());
    ServerLink link =
        ServerLink.load(dir).orElseThrow(() -> new IOException(dir + " was never enrolled"));
    OkHttpClient http = ChaosAgent.http();
    Syncer syncer =
        new Syncer(
            store,
            identity,
            new SyncClient(http, processes.serverUrl(), Clock.systemUTC()),
            link.serverVerifier(),
            ChaosAgent.SYNC,
            new Backoff(
                ChaosAgent.SYNC.backoffBase(), ChaosAgent.SYNC.backoffCap(), random::nextDouble),
            Sleeper.real(),
            Clock.systemUTC(),
            () -> null);
    long deadline = System.nanoTime() + Duration.ofMinutes(3).toNanos();
    String last = "no sync attempted";
    while (System.nanoTime() < deadline) {
      try {
        SyncReport r = syncer.sync();
        if (r.complete()) {
          return null;
        }
        last = "incomplete: " + r;
      } catch (SyncStoppedException e) {
        if (!e.retryLater()) {
          return e.reason() + ": " + e.getMessage();
        }
        last = e.getMessage();
      } catch (IOException e) {
        last = e.toString();
      }
      Thread.sleep(500);
    }
    return last;
  }

  private ChaosHarness.Check rootsCheck(Map<String, String> roots, Map<String, Long> sizes)
      throws Exception {
    List<String> bad = new ArrayList<>();
    Random pick = new Random(seed);
    int proofs = 0;
    LedgerClient direct = processes.direct();
    List<String> deviceIds = processes.deviceIds();
    for (String id : deviceIds) {
      LedgerClient.Reply<LogState> log = direct.log(id);
      if (!log.ok()) {
        bad.add(id + ": /log " + log.code());
        continue;
      }
      LogState s = log.body();
      long size = sizes.get(id);
      if (s.verifiedSize() != size
          || (size > 0 && !String.valueOf(roots.get(id)).equals(s.rootHex()))
          || "QUARANTINED".equals(s.status())) {
        bad.add(
            id
                + ": server "
                + s.verifiedSize()
                + " "
                + s.rootHex()
                + " "
                + s.status()
                + ", agent "
                + size
                + " "
                + roots.get(id));
        continue;
      }
      for (int i = 0; i < 5 && size > 0; i++) {
        long index = (long) (pick.nextDouble() * size);
        LedgerClient.Reply<InclusionProofResponse> p = direct.inclusion(id, index);
        if (!p.ok()) {
          bad.add(id + ": proof " + index + " " + p.code());
          break;
        }
        InclusionProof.verify(
            index,
            p.body().size(),
            HEX.parseHex(p.body().leafHashHex()),
            p.body().proofHex().stream().map(HEX::parseHex).toList(),
            HEX.parseHex(roots.get(id)));
        proofs++;
      }
    }
    return new ChaosHarness.Check(
        "every device root verified (server root == agent root, inclusion proofs)",
        bad.isEmpty(),
        bad.isEmpty()
            ? deviceIds.size() + " devices, " + proofs + " inclusion proofs verified"
            : first(bad));
  }

  private Map<String, List<RoomMessage>> readRooms() throws IOException, InterruptedException {
    Map<String, List<RoomMessage>> out = new LinkedHashMap<>();
    for (String room : rooms) {
      List<RoomMessage> all = new ArrayList<>();
      long after = 0;
      while (true) {
        LedgerClient.Reply<RoomPage> page = processes.direct().room(room, after, 1000);
        if (!page.ok()) {
          throw new IOException("room " + room + ": " + page.code());
        }
        if (page.body().messages().isEmpty()) {
          break;
        }
        all.addAll(page.body().messages());
        after = page.body().messages().get(page.body().messages().size() - 1).seq();
      }
      out.put(room, all);
    }
    return out;
  }

  private static Set<String> readAcked(Path file) throws IOException {
    Set<String> out = new HashSet<>();
    if (!Files.exists(file)) {
      return out;
    }
    String text = Files.readString(file, StandardCharsets.US_ASCII);
    int end = text.lastIndexOf('\n');
    if (end < 0) {
      return out;
    }
    for (String line : text.substring(0, end).split("\n")) {
      if (!line.isBlank()) {
        out.add(line.strip());
      }
    }
    return out;
  }

  private static String first(List<String> problems) {
    return problems.get(0) + (problems.size() > 1 ? " (+" + (problems.size() - 1) + " more)" : "");
  }
}
