package dev.danmakuledger.bench.ingest;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
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
 * <p>The JIT's share is the CPU time of this JVM's compiler threads, read from {@code
 * /proc/self/task/<tid>/stat} by their names ({@code C1 CompilerThread<n>}, {@code C2
 * CompilerThread<n>}, cut to 15 characters by the kernel). The JVM's own figure, {@code
 * CompilationMXBean.getTotalCompilationTime()}, is the time compilations took from start to end: on
 * a machine with more runnable threads than cores it includes the time a compiler thread waited for
 * a core, and summed over compiler threads it can exceed the whole JVM's CPU.
 *
 * @param jvmNanos this JVM's CPU time, or -1 if the platform does not report it
 * @param jitNanos CPU time of this JVM's JIT compiler threads (part of {@code jvmNanos}), or -1 if
 *     it cannot be read; a compiler thread that ends between two readings takes its time along
 * @param processNanos CPU time of each watched process found, by name
 */
record CpuUse(long jvmNanos, long jitNanos, Map<String, Long> processNanos) {
  /** The processes watched besides this JVM. */
  static final List<String> WATCHED = List.of("mariadbd", "mysqld", "redis-server", "nats-server");

  /** Clock ticks per second of {@code /proc/<pid>/stat} (USER_HZ, 100 on Linux). */
  private static final long TICKS_PER_SECOND = 100;

  CpuUse {
    processNanos = Map.copyOf(processNanos);
  }

  /** The CPU used so far. */
  static CpuUse now() {
    return new CpuUse(
        jvmCpuNanos(),
        compilerThreadNanos(Path.of("/proc/self/task")),
        processes(Path.of("/proc")));
  }

  /**
   * Microseconds of CPU per record between {@code earlier} and this, e.g. {@code "CPU µs/record:
   * bench JVM 31.2 (JIT 1.4), mariadbd 24.9"}; a process not seen at both ends is left out.
   */
  String perRecordSince(CpuUse earlier, long records) {
    StringBuilder out = new StringBuilder("CPU \u00b5s/record:");
    String sep = " ";
    if (records > 0 && jvmNanos >= 0 && earlier.jvmNanos >= 0) {
      out.append(sep).append("bench JVM ").append(micros(jvmNanos - earlier.jvmNanos, records));
      if (jitNanos >= 0 && earlier.jitNanos >= 0 && jitNanos >= earlier.jitNanos) {
        out.append(" (JIT ").append(micros(jitNanos - earlier.jitNanos, records)).append(')');
      }
      sep = ", ";
    }
    for (Map.Entry<String, Long> e : processNanos.entrySet()) {
      Long before = earlier.processNanos.get(e.getKey());
      if (records > 0 && before != null && e.getValue() >= before) {
        out.append(sep).append(e.getKey()).append(' ');
        out.append(micros(e.getValue() - before, records));
        sep = ", ";
      }
    }
    return sep.equals(" ") ? "CPU \u00b5s/record: not measured" : out.toString();
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
   * The summed CPU time of the JIT compiler threads among the threads under {@code tasks} (a {@code
   * /proc/<pid>/task} directory), or -1 if there is no such directory or no compiler thread in it.
   */
  static long compilerThreadNanos(Path tasks) {
    Map<String, Long> byName = nanosByName(tasks, CpuUse::isCompilerThread);
    return byName.isEmpty() ? -1 : byName.values().stream().mapToLong(Long::longValue).sum();
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
   * /proc/<pid>/task} directory, whose command name {@code wanted} accepts, summed by name; one
   * that ends between listing and reading, or is not ours to read, is left out.
   */
  private static Map<String, Long> nanosByName(Path dir, Predicate<String> wanted) {
    Map<String, Long> out = new LinkedHashMap<>();
    if (!Files.isDirectory(dir)) {
      return out;
    }
    try (DirectoryStream<Path> ids = Files.newDirectoryStream(dir, "[0-9]*")) {
      for (Path id : ids) {
        try {
          String stat = Files.readString(id.resolve("stat"), StandardCharsets.UTF_8);
          String name = commandName(stat);
          OptionalLong ticks = cpuTicks(stat);
          if (name != null && wanted.test(name) && ticks.isPresent()) {
            out.merge(name, ticks.getAsLong() * (1_000_000_000L / TICKS_PER_SECOND), Long::sum);
          }
        } catch (IOException | RuntimeException e) {
          // ended between listing and reading, or not ours to read
        }
      }
    } catch (IOException e) {
      return out;
    }
    return out;
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
