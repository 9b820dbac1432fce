package dev.danmakuledger.bench.ingest;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalLong;
import java.util.function.Predicate;

/**
 * CPU time used so far by the bench JVM and by the local database and Redis processes, so that a
 * run can say how much CPU each record cost where it went (docs/benchmarks.md): on a machine whose
 * cores every part shares, CPU per record moves much less between runs than records per second. The
 * other processes are found by name under {@code /proc} (Linux; none elsewhere, or when the
 * services run on another host), their time read from {@code /proc/<pid>/stat}.
 *
 * <p>The JVM's time is also split by what its threads do ({@link #roleOf}), read from {@code
 * /proc/self/task/<tid>/stat} by thread name (cut to 15 characters by the kernel): the JIT's
 * compiler threads ({@code C1 CompilerThread<n>}, {@code C2 CompilerThread<n>}), the collector's,
 * the server's request threads, its Redis client's event loops, its room-log integrator and the
 * simulated devices with their HTTP client; what no role names is the rest. The JIT's figure is CPU
 * time: the JVM's own, {@code CompilationMXBean.getTotalCompilationTime()}, is the time
 * compilations took from start to end, which on a machine with more runnable threads than cores
 * includes the time a compiler thread waited for a core and can exceed the whole JVM's CPU.
 *
 * @param jvmNanos this JVM's CPU time, or -1 if the platform does not report it
 * @param threads the CPU time of each of this JVM's threads that has a role, by thread id (part of
 *     {@code jvmNanos}); empty if it cannot be read. A thread that ends between two readings takes
 *     its time along (to the rest)
 * @param processNanos CPU time of each watched process found, by name
 */
public record CpuUse(long jvmNanos, Map<Long, ThreadTime> threads, Map<String, Long> processNanos) {
  /** One thread's role ({@link #roleOf}) and CPU time so far. */
  record ThreadTime(String role, long nanos) {}

  /** The roles of this JVM's threads, in the order they are reported. */
  static final List<String> ROLES =
      List.of("JIT", "GC", "requests", "Redis client", "room log", "devices");

  /** The prefix of the simulated devices' own threads. */
  public static final String DEVICE_THREAD = "bench-device-";

  /** The processes watched besides this JVM. */
  static final List<String> WATCHED = List.of("mariadbd", "mysqld", "redis-server", "nats-server");

  /** Clock ticks per second of {@code /proc/<pid>/stat} (USER_HZ, 100 on Linux). */
  private static final long TICKS_PER_SECOND = 100;

  public CpuUse {
    threads = Map.copyOf(threads);
    processNanos = Map.copyOf(processNanos);
  }

  /** The longest a run waits for the watched processes to fall quiet before or after its clock. */
  static final Duration SETTLE = Duration.ofSeconds(20);

  /** How often {@link #whenQuiet} reads the watched processes' CPU. */
  static final Duration QUIET_POLL = Duration.ofMillis(500);

  /**
   * The most CPU a watched process may use in one {@link #QUIET_POLL} to count as quiet: one clock
   * tick, 2% of a core.
   */
  static final long QUIET_NANOS = 1_000_000_000L / TICKS_PER_SECOND;

  /**
   * Waits until no watched process used more than {@link #QUIET_NANOS} in the last {@link
   * #QUIET_POLL}, or until {@code max} passed, and returns the CPU used so far then. A database
   * goes on with the work a run gave it (InnoDB's purge and page flushing) after the run's last
   * statement: read at that point, the database's CPU counts that work to the run that caused it
   * and keeps it out of the next one.
   */
  static CpuUse whenQuiet(Duration max) throws InterruptedException {
    long deadline = System.nanoTime() + max.toNanos();
    CpuUse last = now();
    while (System.nanoTime() < deadline) {
      Thread.sleep(QUIET_POLL.toMillis());
      CpuUse next = now();
      if (quietSince(last.processNanos, next.processNanos)) {
        return next;
      }
      last = next;
    }
    return now();
  }

  /**
   * Whether no process of {@code later} used more than {@link #QUIET_NANOS} since {@code earlier}.
   */
  static boolean quietSince(Map<String, Long> earlier, Map<String, Long> later) {
    for (Map.Entry<String, Long> e : later.entrySet()) {
      long before = earlier.getOrDefault(e.getKey(), e.getValue());
      if (e.getValue() - before > QUIET_NANOS) {
        return false;
      }
    }
    return true;
  }

  /**
   * The share of a core the JIT's compiler threads may take over a warm-up round for the code to
   * count as compiled: the warm-ups of the benchmarks run until then, because a server or relay
   * runs for days on compiled code and, on two busy cores, a measured run beside a compiler that is
   * still at work measures the compiler.
   */
  public static final double SETTLED_JIT_SHARE = 0.10;

  /** The CPU used so far. */
  public static CpuUse now() {
    return new CpuUse(
        jvmCpuNanos(), threadsWithRoles(Path.of("/proc/self/task")), processes(Path.of("/proc")));
  }

  /**
   * The role of a thread named {@code name} (as {@code /proc} cuts it to 15 characters), one of
   * {@link #ROLES}, or null for the rest.
   */
  static String roleOf(String name) {
    if (isCompilerThread(name)) {
      return "JIT";
    }
    if (name.startsWith("GC Thread#") || name.startsWith("G1 ")) {
      return "GC";
    }
    if (name.startsWith("http-") || name.startsWith("JettyServerThre")) {
      return "requests"; // the sync server's request threads; Javalin's default pool's
    }
    if (name.startsWith("lettuce-")) {
      return "Redis client";
    }
    if (name.equals("room-log-integr")) {
      return "room log";
    }
    if (name.startsWith(DEVICE_THREAD) || name.startsWith("HttpClient-")) {
      return "devices";
    }
    return null;
  }

  /**
   * The threads under {@code tasks} (a {@code /proc/<pid>/task} directory) that have a {@link
   * #roleOf role}, by thread id.
   */
  static Map<Long, ThreadTime> threadsWithRoles(Path tasks) {
    Map<Long, ThreadTime> out = new HashMap<>();
    readStats(
        tasks,
        name -> true,
        (id, name, nanos) -> {
          String role = roleOf(name);
          if (role != null) {
            out.put(id, new ThreadTime(role, nanos));
          }
        });
    return out;
  }

  /**
   * CPU time by role of the threads of {@code later} since {@code earlier}, in the order of {@link
   * #ROLES}: a thread not seen earlier started from nothing, one seen with another role (its id
   * reused) too; roles without a thread are absent.
   */
  static Map<String, Long> byRoleBetween(
      Map<Long, ThreadTime> earlier, Map<Long, ThreadTime> later) {
    Map<String, Long> used = new HashMap<>();
    for (Map.Entry<Long, ThreadTime> e : later.entrySet()) {
      ThreadTime before = earlier.get(e.getKey());
      ThreadTime now = e.getValue();
      long from = before != null && before.role().equals(now.role()) ? before.nanos() : 0;
      used.merge(now.role(), Math.max(0, now.nanos() - from), Long::sum);
    }
    Map<String, Long> out = new LinkedHashMap<>();
    for (String role : ROLES) {
      if (used.containsKey(role)) {
        out.put(role, used.get(role));
      }
    }
    return out;
  }

  /**
   * Microseconds of CPU per record between {@code earlier} and this, e.g. {@code "CPU µs/record:
   * bench JVM 31.2 (JIT 1.4, requests 12.0, rest 17.8), mariadbd 24.9"}: the JVM's time split by
   * thread role ({@link #byRoleBetween}), the rest being what no role's live thread took; a process
   * not seen at both ends is left out.
   */
  public String perRecordSince(CpuUse earlier, long records) {
    StringBuilder out = new StringBuilder("CPU \u00b5s/record:");
    String sep = " ";
    if (records > 0 && jvmNanos >= 0 && earlier.jvmNanos >= 0) {
      long jvm = jvmNanos - earlier.jvmNanos;
      out.append(sep).append("bench JVM ").append(micros(jvm, records));
      String inner = " (";
      long named = 0;
      for (Map.Entry<String, Long> e : byRoleBetween(earlier.threads, threads).entrySet()) {
        out.append(inner).append(e.getKey()).append(' ').append(micros(e.getValue(), records));
        named += e.getValue();
        inner = ", ";
      }
      if (!inner.equals(" (")) {
        out.append(", rest ").append(micros(Math.max(0, jvm - named), records)).append(')');
      }
      sep = ", ";
    }
    for (Map.Entry<String, Double> e : processMicrosSince(earlier, records).entrySet()) {
      out.append(sep).append(e.getKey()).append(' ');
      out.append(String.format(Locale.ROOT, "%.1f", e.getValue()));
      sep = ", ";
    }
    return sep.equals(" ") ? "CPU \u00b5s/record: not measured" : out.toString();
  }

  /**
   * Microseconds of CPU per record each watched process used between {@code earlier} and this, by
   * name; a process not seen at both ends is left out, and so is every one when {@code records} is
   * not positive.
   */
  Map<String, Double> processMicrosSince(CpuUse earlier, long records) {
    Map<String, Double> out = new LinkedHashMap<>();
    for (Map.Entry<String, Long> e : processNanos.entrySet()) {
      Long before = earlier.processNanos.get(e.getKey());
      if (records > 0 && before != null && e.getValue() >= before) {
        out.put(e.getKey(), (e.getValue() - before) / 1e3 / records);
      }
    }
    return out;
  }

  private static String micros(long nanos, long records) {
    return String.format(Locale.ROOT, "%.1f", nanos / 1e3 / records);
  }

  private static long jvmCpuNanos() {
    if (ManagementFactory.getOperatingSystemMXBean()
        instanceof com.sun.management.OperatingSystemMXBean os) {
      return os.getProcessCpuTime();
    }
    return -1;
  }

  /**
   * The share of a core the threads of {@code role} took between {@code earlier} and this, over
   * {@code wallNanos} of wall time (1.0 is one core busy), or NaN when no thread of the role was
   * seen or the wall time is not positive.
   */
  public double roleShareSince(CpuUse earlier, String role, long wallNanos) {
    Long used = byRoleBetween(earlier.threads, threads).get(role);
    return used == null || wallNanos <= 0 ? Double.NaN : used / (double) wallNanos;
  }

  /** HotSpot's compiler threads: "C1 CompilerThread0", "C2 CompilerThread1", ... (cut to 15). */
  static boolean isCompilerThread(String name) {
    return (name.startsWith("C1 ") || name.startsWith("C2 ")) && name.startsWith("CompilerThre", 3);
  }

  /** The summed CPU time of the watched processes under {@code proc}, by name. */
  static Map<String, Long> processes(Path proc) {
    return nanosByName(proc, WATCHED::contains);
  }

  /**
   * The CPU time of the processes (or threads) under {@code dir}, a {@code /proc} or {@code
   * /proc/<pid>/task} directory, whose command name {@code wanted} accepts, summed by name.
   */
  private static Map<String, Long> nanosByName(Path dir, Predicate<String> wanted) {
    Map<String, Long> out = new LinkedHashMap<>();
    readStats(dir, wanted, (id, name, nanos) -> out.merge(name, nanos, Long::sum));
    return out;
  }

  /** What {@link #readStats} hands over: a process or thread id, its command name, its CPU time. */
  @FunctionalInterface
  private interface StatSink {
    void accept(long id, String name, long nanos);
  }

  /**
   * Hands {@code sink} every process (or thread) under {@code dir} whose command name {@code
   * wanted} accepts; one that ends between listing and reading, or is not ours to read, is left
   * out.
   */
  private static void readStats(Path dir, Predicate<String> wanted, StatSink sink) {
    if (!Files.isDirectory(dir)) {
      return;
    }
    try (DirectoryStream<Path> ids = Files.newDirectoryStream(dir, "[0-9]*")) {
      for (Path id : ids) {
        try {
          String stat = Files.readString(id.resolve("stat"), StandardCharsets.UTF_8);
          String name = commandName(stat);
          OptionalLong ticks = cpuTicks(stat);
          if (name != null && wanted.test(name) && ticks.isPresent()) {
            sink.accept(
                Long.parseLong(id.getFileName().toString()),
                name,
                ticks.getAsLong() * (1_000_000_000L / TICKS_PER_SECOND));
          }
        } catch (IOException | RuntimeException e) {
          // ended between listing and reading, or not ours to read
        }
      }
    } catch (IOException e) {
      // the directory went away: what was read so far stands
    }
  }

  /** The command name of a {@code /proc/<pid>/stat} line (between the first '(' and last ')'). */
  static String commandName(String stat) {
    int open = stat.indexOf('(');
    int close = stat.lastIndexOf(')');
    return open < 0 || close < open ? null : stat.substring(open + 1, close);
  }

  /**
   * utime + stime (fields 14 and 15) of a {@code /proc/<pid>/stat} line, counted after the command
   * name, which may itself hold spaces and parentheses; empty if the line is not of that form.
   */
  static OptionalLong cpuTicks(String stat) {
    int close = stat.lastIndexOf(')');
    if (close < 0) {
      return OptionalLong.empty();
    }
    String[] rest = stat.substring(close + 1).trim().split(" +");
    // rest[0] is field 3 (state): utime is field 14, stime field 15
    if (rest.length < 13) {
      return OptionalLong.empty();
    }
    try {
      long utime = Long.parseLong(rest[11]);
      long stime = Long.parseLong(rest[12]);
      return utime < 0 || stime < 0 ? OptionalLong.empty() : OptionalLong.of(utime + stime);
    } catch (NumberFormatException e) {
      return OptionalLong.empty();
    }
  }
}
