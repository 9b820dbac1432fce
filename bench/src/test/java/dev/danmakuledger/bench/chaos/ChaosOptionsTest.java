package dev.danmakuledger.bench.chaos;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Which deployments a chaos run accepts, and which faults each must leave out by name. */
class ChaosOptionsTest {
  private static final Set<String> H2_FAULTS =
      Set.of("mariadb-restart", "sql-connection-kill", "two-instances");

  private static ChaosHarness.Options options(
      boolean ownMariaDb, Set<String> without, ChaosHarness.Topology t) {
    return new ChaosHarness.Options(
        Duration.ofMinutes(2),
        3,
        4,
        20,
        1,
        null,
        ownMariaDb,
        0.03,
        0.03,
        without,
        Duration.ofSeconds(5),
        t);
  }

  private static ChaosHarness.Topology topology(int servers, boolean cluster) {
    return new ChaosHarness.Topology(servers, ChaosHarness.Balancer.HAPROXY, cluster);
  }

  @Test
  void twoServersOnASharedMariaDbOneOnH2ByDefault() {
    assertEquals(2, options(true, Set.of(), topology(0, false)).topology().servers());
    assertEquals(1, options(false, H2_FAULTS, topology(0, false)).topology().servers());
    assertEquals(5, options(true, Set.of(), topology(5, true)).topology().servers());
  }

  @Test
  void severalServersNeedTheDatabaseTheyShare() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class, () -> options(false, H2_FAULTS, topology(2, false)));
    assertTrue(e.getMessage().contains("servers: got 2 on the embedded H2"), e.getMessage());
  }

  @Test
  void oneServerCannotTakeABatchTwiceSoItMustBeLeftOut() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class, () -> options(true, Set.of(), topology(1, false)));
    assertTrue(e.getMessage().contains("--without two-instances"), e.getMessage());
    assertEquals(
        1, options(true, Set.of("two-instances"), topology(1, false)).topology().servers());
  }

  @Test
  void eachRedisTopologyBringsItsOwnFailoverWithoutNamingTheOther() {
    ChaosHarness.Options cluster = options(true, Set.of(), topology(2, true));
    assertTrue(FaultKind.REDIS_FAILOVER_LAGGING.whyNot(cluster.setup()) != null);
    assertEquals(null, FaultKind.REDIS_MASTER_KILL.whyNot(cluster.setup()));
    ChaosHarness.Options pair = options(true, Set.of(), topology(2, false));
    assertEquals(null, FaultKind.REDIS_FAILOVER_LAGGING.whyNot(pair.setup()));
    assertTrue(FaultKind.REDIS_MASTER_KILL.whyNot(pair.setup()) != null);
  }

  @Test
  void kafkaNeedsTheSharedMariaDbAndBringsItsFaultsWithoutNamingThemOtherwise() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                options(
                    false,
                    H2_FAULTS,
                    new ChaosHarness.Topology(1, ChaosHarness.Balancer.PROXY, false, true)));
    assertTrue(e.getMessage().contains("kafka: got the embedded H2"), e.getMessage());
    ChaosHarness.Options with =
        options(
            true, Set.of(), new ChaosHarness.Topology(0, ChaosHarness.Balancer.PROXY, false, true));
    assertTrue(with.topology().kafka());
    ChaosHarness.Options without = options(true, Set.of(), topology(2, false));
    for (FaultKind k :
        List.of(
            FaultKind.KAFKA_BROKER_SIGKILL,
            FaultKind.RELAY_SIGKILL_MID_TRANSACTION,
            FaultKind.KAFKA_CUT)) {
      assertEquals(null, k.whyNot(with.setup()));
      assertTrue(k.whyNot(without.setup()).contains("--kafka"));
    }
  }

  @Test
  void serversOutOfRangeAreRefused() {
    assertThrows(IllegalArgumentException.class, () -> topology(9, false));
    assertThrows(IllegalArgumentException.class, () -> topology(-1, false));
    assertThrows(IllegalArgumentException.class, () -> new ChaosHarness.Topology(2, null, false));
  }
}
