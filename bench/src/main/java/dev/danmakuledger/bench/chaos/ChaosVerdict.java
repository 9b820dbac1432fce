package dev.danmakuledger.bench.chaos;

import dev.danmakuledger.bench.ingest.LedgerClient;
import dev.danmakuledger.edge.config.AgentConfig;
import dev.danmakuledger.edge.keys.DeviceIdentity;
import dev.danmakuledger.edge.store.Durability;
import dev.danmakuledger.edge.store.EdgeStore;
import dev.danmakuledger.edge.verify.LogVerifier;
import dev.danmakuledger.edge.verify.VerifyReport;
import dev.danmakuledger.merkle.checkpoint.NoteVerifier;
import dev.danmakuledger.merkle.proof.InclusionProof;
import dev.danmakuledger.protocol.wire.InclusionProofResponse;
import dev.danmakuledger.protocol.wire.LogState;
import dev.danmakuledger.protocol.wire.RoomMessage;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

/**
 * The verdict of a chaos run, once the faults stopped (docs/benchmarks.md, chaos): every agent is
 * stopped and its store synced to the end; the harness waits until every numbering hole is older
 * than the gap sealer's age; then what the agents acknowledged and hold is checked against what the
 * servers store: no acknowledged capture lost, nothing stored twice, every room numbered 1..max
 * with every hole a tombstone, every device root and inclusion proof verified, every DUPLICATE or
 * CONFLICT outcome resolving to a stored message, every cloned device seen as a fork, and no 5xx
 * but the documented outage answer.
 */
final class ChaosVerdict {
  private static final HexFormat HEX = HexFormat.of();

  /** The checks and the totals the report prints. */
  record Verdict(List<ChaosHarness.Check> checks, Map<String, Long> totals) {
    Verdict {
      checks = List.copyOf(checks);
    }
  }

  /** What one agent's store holds after its final sync. */
  private record AgentState(
      String id,
      Set<String> keys,
      long size,
      String root,
      Set<String> acked,
      List<String> resolvedElsewhere,
      long rejected) {}

  private final ChaosProcesses processes;
  private final List<String> rooms;
  private final Random random;
  private final long seed;
  private final Duration gapSealAfter;

  /**
   * @param random the run's random source (the final syncs' backoff jitter draws from it)
   * @param seed the run's seed, for the choice of inclusion proofs
   * @param gapSealAfter the servers' gap-sealer age
   */
  ChaosVerdict(
      ChaosProcesses processes,
      List<String> rooms,
      Random random,
      long seed,
      Duration gapSealAfter) {
    this.processes = processes;
    this.rooms = List.copyOf(rooms);
    this.random = random;
    this.seed = seed;
    this.gapSealAfter = gapSealAfter;
  }

  /** Stops the agents and the repeating device, syncs every store to the end, checks the run. */
  Verdict judge(RepeatingDevice repeating) throws Exception {
    repeating.finish();
    List<String> exited = new ArrayList<>();
    for (Child a : processes.agents()) {
      if (!a.alive()) {
        exited.add(a.name() + " exited on its own (see its log)");
      }
      a.kill();
    }
    for (Child a : processes.cloneChildren()) {
      a.kill();
    }
    for (int i = 0; i < processes.servers().size(); i++) {
      Child server = processes.servers().get(i);
      server.signal(false);
      if (!server.alive()) {
        server.start();
      }
      processes.waitReady(i, Duration.ofSeconds(90));
    }
    FinalSync sync = new FinalSync(processes.proxyUrl(), random);
    List<AgentState> agents = new ArrayList<>();
    List<String> unsynced = new ArrayList<>();
    List<String> badLogs = new ArrayList<>();
    for (int a = 0; a < processes.agentDirs().size(); a++) {
      String id = processes.deviceIds().get(a);
      Path dir = processes.agentDirs().get(a);
      try (EdgeStore store = EdgeStore.open(EdgeStore.fileIn(dir), Durability.FULL)) {
        String refusal = sync.sync(dir, store);
        if (refusal != null) {
          unsynced.add(id + ": " + refusal);
        }
        DeviceIdentity identity = DeviceIdentity.load(dir, AgentConfig.load(dir).deviceId());
        VerifyReport report =
            new LogVerifier(id, NoteVerifier.parse(identity.signer().verifierKey())).verify(store);
        if (!report.ok()) {
          badLogs.add(id + ": " + report.problem());
        }
        agents.add(state(id, dir, store, report.rootHex()));
      }
    }
    CloneVerdict.syncAll(processes.clones(), sync);
    // a hole is sealed once older than T, by a sealer running every max(1 s, T/3): wait that out
    long sealerPeriod = Math.max(1_000, Math.min(30_000, gapSealAfter.toMillis() / 3));
    Thread.sleep(gapSealAfter.toMillis() + sealerPeriod + 3_000);
    RoomLedger ledger = RoomLedger.read(processes.direct(), rooms);

    List<ChaosHarness.Check> checks = new ArrayList<>();
    Map<String, Long> totals = new LinkedHashMap<>();
    long acked = agents.stream().mapToLong(s -> s.acked().size()).sum();
    long captured = agents.stream().mapToLong(s -> s.keys().size()).sum();
    long storedOfAgents = 0;
    List<String> lostAcks = new ArrayList<>();
    List<String> mismatch = new ArrayList<>();
    for (AgentState s : agents) {
      for (String k : s.acked()) {
        if (!s.keys().contains(k)) {
          lostAcks.add(s.id() + " " + k);
        }
      }
      Set<String> got = ledger.keysOf(s.id());
      storedOfAgents += got.size();
      if (!s.keys().equals(got)) {
        Set<String> missing = new HashSet<>(s.keys());
        missing.removeAll(got);
        Set<String> extra = new HashSet<>(got);
        extra.removeAll(s.keys());
        mismatch.add(
            s.id()
                + ": "
                + missing.size()
                + " captured but not stored, "
                + extra.size()
                + " extra");
      }
    }
    totals.put("acked keys (agents' acked.log)", acked);
    totals.put("captured records (agents' stores)", captured);
    totals.put("stored messages (server rooms, cloned devices included)", ledger.stored);
    totals.put("tombstones (numbers burned, accounted for)", ledger.tombstones);
    totals.put("duplicates stored", ledger.duplicateKeys);
    totals.put("holes in room numbering (after the gap sealer)", ledger.holeCount);
    checks.add(
        check(
            "every acknowledged capture is in its agent's store",
            lostAcks,
            acked + " acked keys found"));
    checks.add(
        check("every agent synced to the end", unsynced, "all " + agents.size() + " logs synced"));
    checks.add(check("every agent log passes verify", badLogs, "signatures and roots recomputed"));
    for (AgentState s : agents) {
      if (s.keys().isEmpty()) {
        exited.add(s.id() + " captured nothing");
      }
    }
    checks.add(
        check(
            "every agent ran to the end and captured",
            exited,
            agents.size() + " agents alive until stopped, each with captures"));
    checks.add(
        new ChaosHarness.Check(
            "captured-and-acknowledged on agents == stored on the server",
            mismatch.isEmpty() && captured == storedOfAgents,
            mismatch.isEmpty()
                ? captured + " captured, " + storedOfAgents + " stored"
                : first(mismatch)));
    checks.add(
        new ChaosHarness.Check(
            "duplicates stored == 0",
            ledger.duplicateKeys == 0,
            ledger.duplicateKeys + " keys stored more than once"));
    checks.add(
        check(
            "per-room numbering: each number once",
            ledger.numberedTwice,
            ledger.roomCount + " rooms"));
    checks.add(
        check(
            "every hole older than "
                + gapSealAfter.toSeconds()
                + " s is a tombstone (1..max complete)",
            ledger.holes,
            ledger.roomCount + " rooms, " + ledger.tombstones + " tombstones, 0 holes"));
    checks.add(rootsCheck(agents));
    checks.add(repeatingCheck(repeating, ledger));
    totals.put("times the server had lost batches it had acknowledged", repeating.rewinds());
    checks.add(resolvedCheck(agents, repeating, totals));
    checks.add(CloneVerdict.judge(processes.clones(), processes.direct(), ledger));
    checks.add(serverErrorsCheck(totals));
    checks.add(streamsCheck(ledger, totals));
    return new Verdict(checks, totals);
  }

  /**
   * Every subscriber of every room, on every instance, got each CONFIRMED message of its room once,
   * in cursor order, complete up to the room's mark, across its reconnections. A subscriber still
   * catching up (reconnected late, or stalled) gets up to 60 s to reach the mark.
   */
  private ChaosHarness.Check streamsCheck(RoomLedger ledger, Map<String, Long> totals)
      throws InterruptedException {
    List<StreamSubscriber> subs = processes.subscribers();
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    for (StreamSubscriber s : subs) {
      long want = ledger.confirmedByRoom.getOrDefault(s.room(), Map.of()).size();
      while (s.lastCursor() < want && System.nanoTime() < deadline) {
        Thread.sleep(100);
      }
    }
    Map<String, List<StreamEvent>> streams = new LinkedHashMap<>();
    Map<String, String> roomOf = new LinkedHashMap<>();
    long events = 0;
    long connections = 0;
    long cutOffs = 0;
    for (StreamSubscriber s : subs) {
      s.close();
      List<StreamEvent> got = s.events();
      streams.put(s.name(), got);
      roomOf.put(s.name(), s.room());
      events += got.size();
      connections += s.connections();
      cutOffs += s.cutOffs();
    }
    totals.put("stream subscribers (every room on every instance, direct)", (long) subs.size());
    totals.put("stream events received (all subscribers)", events);
    totals.put("stream reconnections with Last-Event-ID", connections - subs.size());
    totals.put("streams the server ended with a resume event", cutOffs);
    List<String> bad = StreamVerdict.judgeAll(streams, roomOf, ledger.confirmedByRoom);
    return check(
        "every stream subscriber got every CONFIRMED message once, in cursor order, complete",
        bad,
        subs.size() + " subscribers, " + events + " events, each room complete on each");
  }

  private static AgentState state(String id, Path dir, EdgeStore store, String root)
      throws IOException {
    List<String> resolve = new ArrayList<>();
    long[] rejected = {0};
    store.forEachRecord(
        r -> {
          if ("DUPLICATE".equals(r.outcome()) || "CONFLICT".equals(r.outcome())) {
            resolve.add(r.idempotencyKey());
          } else if ("REJECTED".equals(r.outcome())) {
            rejected[0]++;
          }
          return true;
        });
    return new AgentState(
        id,
        new HashSet<>(store.keysFrom(0)),
        store.recordCount(),
        root,
        readAcked(dir.resolve(ChaosAgent.ACKED_LOG)),
        resolve,
        rejected[0]);
  }

  /** The device without edge dedupe: each key stored once, its whole log verified. */
  private ChaosHarness.Check repeatingCheck(RepeatingDevice device, RoomLedger ledger)
      throws IOException, InterruptedException {
    List<String> bad = new ArrayList<>();
    Set<String> want = device.firstSent();
    Set<String> got = ledger.keysOf(device.deviceId());
    if (!want.equals(got)) {
      Set<String> missing = new HashSet<>(want);
      missing.removeAll(got);
      Set<String> extra = new HashSet<>(got);
      extra.removeAll(want);
      bad.add(missing.size() + " sent but not stored, " + extra.size() + " stored but not sent");
    }
    LedgerClient.Reply<LogState> log = processes.direct().log(device.deviceId());
    if (!log.ok() || log.body().verifiedSize() != device.size()) {
      bad.add(
          "server verified "
              + (log.ok() ? log.body().verifiedSize() : log.code())
              + " of its "
              + device.size()
              + " records");
    }
    return check(
        "device without edge dedupe: each of its keys stored once, its log verified",
        bad,
        want.size() + " keys in " + device.size() + " records, each stored once");
  }

  /** Every DUPLICATE/CONFLICT outcome names a key the server returns a stored message for. */
  private ChaosHarness.Check resolvedCheck(
      List<AgentState> agents, RepeatingDevice repeating, Map<String, Long> totals)
      throws IOException, InterruptedException {
    List<String> bad = new ArrayList<>();
    long n = 0;
    Map<String, List<String>> byDevice = new LinkedHashMap<>();
    for (AgentState s : agents) {
      byDevice.put(s.id(), s.resolvedElsewhere());
    }
    byDevice.put(repeating.deviceId(), repeating.resolveKeys());
    for (Map.Entry<String, List<String>> e : byDevice.entrySet()) {
      for (String key : e.getValue()) {
        n++;
        LedgerClient.Reply<RoomMessage> m = processes.direct().message(key);
        if (!m.ok()) {
          bad.add(
              e.getKey() + " " + key + ": GET /v1/messages/{key} " + m.status() + " " + m.code());
        } else if (m.body().status() == RoomMessage.Status.TOMBSTONE
            || !key.equals(m.body().idempotencyKey())) {
          bad.add(
              e.getKey() + " " + key + ": resolves to " + m.body().status() + " " + m.body().seq());
        }
      }
    }
    totals.put("DUPLICATE/CONFLICT outcomes (agents + device without dedupe)", n);
    totals.put(
        "REJECTED outcomes (agents' stores)", agents.stream().mapToLong(s -> s.rejected()).sum());
    return check(
        "every DUPLICATE/CONFLICT outcome resolves to a stored message",
        bad,
        n + " outcomes, each found by GET /v1/messages/{key}");
  }

  /** No 5xx through the proxy but the documented outage answer (503, Retry-After). */
  private ChaosHarness.Check serverErrorsCheck(Map<String, Long> totals) {
    HttpStatusTally tally = processes.proxy().statuses();
    long all = 0;
    long outage = 0;
    long balancer = 0;
    List<String> other = new ArrayList<>();
    for (Map.Entry<String, Long> e : tally.serverErrors().entrySet()) {
      all += e.getValue();
      if (HttpStatusTally.isOutageAnswer(e.getKey())) {
        outage += e.getValue();
      } else if (HttpStatusTally.isBalancerAnswer(e.getKey())) {
        balancer += e.getValue();
      } else {
        other.add(e.getValue() + " x " + e.getKey());
      }
    }
    totals.put("HTTP responses (proxy)", tally.responses());
    totals.put("5xx responses (proxy)", all);
    totals.put("  of which 503 outage answers with Retry-After", outage);
    if (processes.balancer() != null) {
      totals.put("  of which HAProxy's own (no instance reached)", balancer);
    }
    return check(
        "no 5xx but 503 redis-unavailable/sql-unavailable with Retry-After",
        other,
        all
            + " 5xx of "
            + tally.responses()
            + " responses, all outage answers"
            + (balancer > 0 ? " (" + balancer + " of the balancer, no instance reached)" : ""));
  }

  private ChaosHarness.Check rootsCheck(List<AgentState> agents) throws Exception {
    List<String> bad = new ArrayList<>();
    Random pick = new Random(seed);
    int proofs = 0;
    LedgerClient direct = processes.direct();
    for (AgentState a : agents) {
      LedgerClient.Reply<LogState> log = direct.log(a.id());
      if (!log.ok()) {
        bad.add(a.id() + ": /log " + log.code());
        continue;
      }
      LogState s = log.body();
      long size = a.size();
      if (s.verifiedSize() != size
          || (size > 0 && !String.valueOf(a.root()).equals(s.rootHex()))
          || s.status() == LogState.Status.QUARANTINED) {
        bad.add(
            a.id()
                + ": server "
                + s.verifiedSize()
                + " "
                + s.rootHex()
                + " "
                + s.status()
                + ", agent "
                + size
                + " "
                + a.root());
        continue;
      }
      for (int i = 0; i < 5 && size > 0; i++) {
        long index = (long) (pick.nextDouble() * size);
        LedgerClient.Reply<InclusionProofResponse> p = direct.inclusion(a.id(), index);
        if (!p.ok()) {
          bad.add(a.id() + ": proof " + index + " " + p.code());
          break;
        }
        InclusionProof.verify(
            index,
            p.body().size(),
            HEX.parseHex(p.body().leafHashHex()),
            p.body().proofHex().stream().map(HEX::parseHex).toList(),
            HEX.parseHex(a.root()));
        proofs++;
      }
    }
    return check(
        "every device root verified (server root == agent root, inclusion proofs)",
        bad,
        agents.size() + " devices, " + proofs + " inclusion proofs verified");
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

  private static ChaosHarness.Check check(String name, List<String> problems, String okDetail) {
    return new ChaosHarness.Check(
        name, problems.isEmpty(), problems.isEmpty() ? okDetail : first(problems));
  }

  private static String first(List<String> problems) {
    return problems.get(0) + (problems.size() > 1 ? " (+" + (problems.size() - 1) + " more)" : "");
  }
}
