package dev.danmakuledger.edge.crash;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.danmakuledger.edge.keys.DeviceIdentity;
import dev.danmakuledger.edge.store.DataDirLock;
import dev.danmakuledger.edge.store.Durability;
import dev.danmakuledger.edge.store.EdgeStore;
import dev.danmakuledger.edge.store.StoreLockedException;
import dev.danmakuledger.edge.store.StoredRecord;
import dev.danmakuledger.edge.verify.LogVerifier;
import dev.danmakuledger.edge.verify.VerifyReport;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Power-loss safety (docs/edge-agent.md "Durability and crash safety"): a child JVM captures in a
 * loop and is killed with SIGKILL at random points; after each kill the log verifies, every record
 * the child acknowledged is present exactly once at the index it was acknowledged with, and the
 * stored root equals the recomputation.
 */
class CrashSafetyIT {
  private static final int ROUNDS = 6;

  @TempDir Path dir;

  @Test
  @Timeout(value = 120, unit = TimeUnit.SECONDS)
  void acknowledgedCapturesSurviveSigkill() throws Exception {
    DeviceIdentity id = DeviceIdentity.generate(dir, "dev-1", new SecureRandom());
    Random random = new Random(20261130);
    Map<String, Long> acked = new HashMap<>();
    for (int round = 0; round < ROUNDS; round++) {
      List<String> lines = new CopyOnWriteArrayList<>();
      CountDownLatch firstAck = new CountDownLatch(1);
      Process child = startChild(round);
      Thread reader =
          new Thread(
              () -> {
                try (BufferedReader r =
                    new BufferedReader(
                        new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
                  String line;
                  while ((line = r.readLine()) != null) {
                    lines.add(line);
                    if (line.startsWith("ACK ")) {
                      firstAck.countDown();
                    }
                  }
                } catch (java.io.IOException e) {
                  // The child was killed mid-write; what was read is what it acknowledged.
                }
              });
      reader.start();
      assertTrue(firstAck.await(60, TimeUnit.SECONDS), "child never acknowledged: " + lines);
      if (round == 0) {
        StoreLockedException locked = null;
        try (DataDirLock stolen = DataDirLock.acquire(dir)) {
          assertEquals(dir, stolen.dataDir(), "the child holds the lock; acquiring it must fail");
        } catch (StoreLockedException e) {
          locked = e;
        }
        assertTrue(locked != null, "a second owner was let in");
        assertEquals(Long.toString(child.pid()), locked.owner().orElseThrow());
      }
      Thread.sleep(50 + random.nextInt(700));
      child.destroyForcibly();
      child.waitFor(30, TimeUnit.SECONDS);
      reader.join(10_000);

      int roundAcks = 0;
      for (String line : lines) {
        String[] f = line.split(" ");
        if (f.length == 4 && f[0].equals("ACK") && f[3].equals("END")) {
          Long before = acked.put(f[1], Long.parseLong(f[2]));
          assertTrue(
              before == null || before == Long.parseLong(f[2]),
              "key " + f[1] + " acknowledged at " + before + " and at " + f[2]);
          roundAcks++;
        }
      }
      assertTrue(roundAcks > 0, "round " + round + " acknowledged nothing");
      checkStore(id, acked);
    }
  }

  private void checkStore(DeviceIdentity id, Map<String, Long> acked) throws Exception {
    try (DataDirLock lock = DataDirLock.acquire(dir);
        EdgeStore store = EdgeStore.open(EdgeStore.fileIn(dir), Durability.FULL)) {
      assertEquals(dir, lock.dataDir());
      VerifyReport report = new LogVerifier("dev-1", id.signer().verifier()).verify(store);
      assertTrue(report.ok(), report.problem());
      long size = store.logState().size();
      assertEquals(size, store.recordCount());
      assertEquals(size, report.recordsChecked());
      for (Map.Entry<String, Long> a : acked.entrySet()) {
        StoredRecord r = store.findByKey(a.getKey()).orElse(null);
        assertTrue(r != null, "acknowledged key lost: " + a.getKey());
        assertEquals(a.getValue(), r.index(), "index of " + a.getKey());
      }
    }
  }

  private Process startChild(int round) throws Exception {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    return new ProcessBuilder(
            java,
            "-cp",
            System.getProperty("java.class.path"),
            "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
            CrashChild.class.getName(),
            dir.toString(),
            Integer.toString(round))
        .redirectError(ProcessBuilder.Redirect.INHERIT)
        .start();
  }
}
