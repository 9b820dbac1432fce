package dev.danmakuledger.bench.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Reading CPU time from {@code /proc/<pid>/stat} lines, real and hostile, and per record. */
class CpuUseTest {
  private static final String MARIADB =
      "3797 (mariadbd) S 1 3796 3796 0 -1 4194560 82499 0 7 0 54271 10491 0 0 20 0 10 0 5826";

  @Test
  void utimeAndStimeAreFields14And15() {
    assertEquals("mariadbd", CpuUse.commandName(MARIADB));
    assertEquals(OptionalLong.of(54_271 + 10_491), CpuUse.cpuTicks(MARIADB));
  }

  @Test
  void aCommandNameWithSpacesAndParenthesesDoesNotShiftTheFields() {
    String odd = "42 (a) b (c) R 1 2 3 4 5 6 7 8 9 10 300 400 0 0";
    assertEquals("a) b (c", CpuUse.commandName(odd));
    assertEquals(OptionalLong.of(700), CpuUse.cpuTicks(odd));
  }

  @Test
  void malformedLinesGiveNothing() {
    assertNull(CpuUse.commandName("no parentheses here"));
    assertEquals(OptionalLong.empty(), CpuUse.cpuTicks("no parentheses here"));
    assertEquals(OptionalLong.empty(), CpuUse.cpuTicks("1 (x) S 1 2"), "too few fields");
    assertEquals(
        OptionalLong.empty(), CpuUse.cpuTicks("1 (x) S 1 2 3 4 5 6 7 8 9 10 u s"), "not numbers");
    assertEquals(
        OptionalLong.empty(), CpuUse.cpuTicks("1 (x) S 1 2 3 4 5 6 7 8 9 10 -1 5"), "negative");
    assertEquals(
        OptionalLong.empty(),
        CpuUse.cpuTicks("1 (x) S 1 2 3 4 5 6 7 8 9 10 99999999999999999999 5"),
        "overflow");
  }

  @Test
  void onlyWatchedProcessesAreSummedByName(@TempDir Path proc) throws Exception {
    write(proc, "10", MARIADB);
    write(proc, "11", "11 (redis-server) S 1 1 1 0 -1 0 0 0 0 0 100 50 0 0");
    write(proc, "12", "12 (redis-server) S 1 1 1 0 -1 0 0 0 0 0 1 1 0 0");
    write(proc, "13", "13 (bash) S 1 1 1 0 -1 0 0 0 0 0 500 500 0 0");
    write(proc, "14", "garbage");
    Files.createDirectories(proc.resolve("self"));
    Files.createDirectories(proc.resolve("15")); // no stat: the process ended
    Map<String, Long> got = CpuUse.processes(proc);
    assertEquals(Map.of("mariadbd", 647_620_000_000L, "redis-server", 1_520_000_000L), got);
    assertEquals(Map.of(), CpuUse.processes(proc.resolve("absent")));
  }

  @Test
  void perRecordLeavesOutWhatWasNotSeenAtBothEnds() {
    CpuUse before = new CpuUse(1_000_000, Map.of(), Map.of("mariadbd", 0L));
    CpuUse after =
        new CpuUse(3_000_000, Map.of(), Map.of("mariadbd", 5_000_000L, "redis-server", 9L));
    assertEquals(
        "CPU \u00b5s/record: bench JVM 2.0, mariadbd 5.0", after.perRecordSince(before, 1_000));
    assertEquals(
        "CPU \u00b5s/record: not measured",
        new CpuUse(-1, Map.of(), Map.of()).perRecordSince(new CpuUse(-1, Map.of(), Map.of()), 10));
  }

  @Test
  void theRolesArePartsOfTheJvmsTimeAndTheRestIsWhatNoRoleTook() {
    assertEquals(
        "CPU \u00b5s/record: bench JVM 8.0 (JIT 1.0, requests 2.0, devices 4.0, rest 1.0)",
        eightMicrosOfJvm(
            Map.of(1L, jit(2_000_000), 2L, requests(500_000)),
            Map.of(1L, jit(3_000_000), 2L, requests(2_500_000), 3L, devices(4_000_000))));
    CpuUse none = new CpuUse(1_000_000, Map.of(1L, jit(2_000_000)), Map.of());
    assertEquals("CPU \u00b5s/record: not measured", none.perRecordSince(none, 0));
  }

  @Test
  void aThreadThatEndedLeavesItsTimeToTheRestAndANewOneStartsFromNothing() {
    assertEquals(
        "CPU \u00b5s/record: bench JVM 8.0 (JIT 0.5, requests 2.0, devices 1.0, rest 4.5)",
        eightMicrosOfJvm(
            Map.of(1L, devices(5_000_000), 2L, requests(1_000_000)),
            Map.of(2L, requests(3_000_000), 3L, devices(1_000_000), 4L, jit(500_000))));
  }

  /** The CPU line of 1,000 records over which the JVM used 8 ms, its threads as given. */
  private static String eightMicrosOfJvm(
      Map<Long, CpuUse.ThreadTime> before, Map<Long, CpuUse.ThreadTime> after) {
    return new CpuUse(9_000_000, after, Map.of())
        .perRecordSince(new CpuUse(1_000_000, before, Map.of()), 1_000);
  }

  @Test
  void aThreadIdReusedByAnotherRoleStartsFromNothing() {
    Map<String, Long> used =
        CpuUse.byRoleBetween(Map.of(7L, devices(9_000_000)), Map.of(7L, requests(2_000_000)));
    assertEquals(Map.of("requests", 2_000_000L), used);
  }

  private static CpuUse.ThreadTime jit(long nanos) {
    return new CpuUse.ThreadTime("JIT", nanos);
  }

  private static CpuUse.ThreadTime requests(long nanos) {
    return new CpuUse.ThreadTime("requests", nanos);
  }

  private static CpuUse.ThreadTime devices(long nanos) {
    return new CpuUse.ThreadTime("devices", nanos);
  }

  @Test
  void threadsAreSplitByRoleFromTheirNames(@TempDir Path task) throws Exception {
    threadsOfABenchJvm(task);
    Map<String, Long> got = CpuUse.byRoleBetween(Map.of(), CpuUse.threadsWithRoles(task));
    assertEquals(
        List.of("JIT", "GC", "requests", "Redis client", "room log", "devices"),
        List.copyOf(got.keySet()),
        "in the order of ROLES");
    assertEquals(
        new CpuUse.ThreadTime("requests", 20_000_000L), CpuUse.threadsWithRoles(task).get(110L));
    assertEquals(3_620_000_000L, got.get("JIT"));
    assertEquals(150_000_000L, got.get("GC"));
    assertEquals(1_120_000_000L, got.get("requests"), "Javalin's pool and the server's http-<n>");
    assertEquals(400_000_000L, got.get("Redis client"));
    assertEquals(80_000_000L, got.get("room log"));
    assertEquals(70_000_000L, got.get("devices"));
    assertEquals(Map.of(), CpuUse.threadsWithRoles(task.resolve("absent")));
  }

  @Test
  void thisJvmIsMeasured() {
    assertTrue(CpuUse.now().jvmNanos() > 0);
  }

  private static void write(Path proc, String pid, String stat) throws Exception {
    Files.createDirectories(proc.resolve(pid));
    Files.writeString(proc.resolve(pid).resolve("stat"), stat);
  }

  /** A thread's stat line under {@code task} with the given name and utime, stime fields. */
  private static void thread(Path task, int tid, String name, String utime, String stime)
      throws Exception {
    write(
        task,
        Integer.toString(tid),
        tid + " (" + name + ") S 1 1 1 0 -1 0 0 0 0 0 " + utime + " " + stime + " 0 0");
  }

  @Test
  void theJitIsTheCpuTimeOfTheCompilerThreadsOnly(@TempDir Path task) throws Exception {
    threadsOfABenchJvm(task);
    CpuUse before = new CpuUse(0, Map.of(), Map.of());
    CpuUse after = new CpuUse(0, CpuUse.threadsWithRoles(task), Map.of());
    assertEquals(0.5, after.roleShareSince(before, "JIT", 7_240_000_000L), 1e-12);
    CpuUse unread = new CpuUse(0, CpuUse.threadsWithRoles(task.resolve("absent")), Map.of());
    assertTrue(Double.isNaN(unread.roleShareSince(before, "JIT", 7_240_000_000L)));
    assertTrue(Double.isNaN(after.roleShareSince(before, "JIT", 0)));
  }

  /**
   * The threads of a bench JVM as {@code /proc} names them, with look-alike names, malformed lines
   * and a thread that ended.
   */
  private static void threadsOfABenchJvm(Path task) throws Exception {
    String[][] threads = {
      {"100", "java", "900", "100"},
      {"101", "C2 CompilerThre", "300", "20"},
      {"102", "C1 CompilerThre", "40", "2"},
      {"103", "C3 CompilerThre", "7", "7"},
      {"104", "qtp-C2 Compile", "7", "7"},
      {"105", "C2 CompilerThre", "x", "y"},
      {"107", "GC Thread#0", "10", "0"},
      {"108", "G1 Conc#0", "5", "0"},
      {"109", "JettyServerThre", "70", "30"},
      {"110", "JettyServerThre", "1", "1"},
      {"111", "lettuce-nioEven", "20", "20"},
      {"112", "room-log-integr", "8", "0"},
      {"113", "bench-device-1", "3", "0"},
      {"114", "HttpClient-2-Wo", "4", "0"},
      {"115", "room-log", "99", "0"},
      {"116", "lettuce-nioEven", "x", "0"},
      {"117", "http-42", "6", "4"},
      {"118", "httpd-1", "9", "0"},
    };
    for (String[] t : threads) {
      write(
          task,
          t[0],
          t[0] + " (" + t[1] + ") S 1 1 1 0 -1 0 0 0 0 0 " + t[2] + " " + t[3] + " 0 0");
    }
    Files.createDirectories(task.resolve("106")); // no stat: the thread ended
  }

  @Test
  void noCompilerThreadMeansNotMeasured(@TempDir Path task) throws Exception {
    thread(task, 100, "java", "900", "100");
    CpuUse noJit = new CpuUse(0, CpuUse.threadsWithRoles(task), Map.of());
    assertTrue(Double.isNaN(noJit.roleShareSince(noJit, "JIT", 1_000_000_000L)));
    CpuUse before = new CpuUse(1_000_000, Map.of(), Map.of());
    CpuUse after = new CpuUse(5_000_000, Map.of(), Map.of());
    assertEquals("CPU \u00b5s/record: bench JVM 4.0", after.perRecordSince(before, 1_000));
  }

  @Test
  void thisJvmsCompilerThreadsAreFoundOnLinux() {
    Assumptions.assumeTrue(Files.isDirectory(Path.of("/proc/self/task")), "Linux only");
    assertTrue(
        CpuUse.now().threads().values().stream().anyMatch(t -> t.role().equals("JIT")),
        "the compiler threads have the role JIT");
  }

  @Test
  void quietMeansNoWatchedProcessUsedMoreThanATick() {
    long tick = CpuUse.QUIET_NANOS;
    Map<String, Long> before = Map.of("mariadbd", 5 * tick, "redis-server", tick);

    assertTrue(CpuUse.quietSince(before, Map.of("mariadbd", 6 * tick, "redis-server", tick)));
    assertFalse(
        CpuUse.quietSince(before, Map.of("mariadbd", 7 * tick, "redis-server", tick)),
        "two ticks of the database in one poll: still busy");
    assertFalse(CpuUse.quietSince(before, Map.of("mariadbd", 5 * tick, "redis-server", 3 * tick)));
    assertTrue(
        CpuUse.quietSince(before, Map.of("mariadbd", 5 * tick, "nats-server", 40 * tick)),
        "a process first seen now has no poll to compare with");
    assertTrue(CpuUse.quietSince(Map.of(), Map.of()), "nothing watched runs here");
  }
}
