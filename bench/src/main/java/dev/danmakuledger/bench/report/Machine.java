package dev.danmakuledger.bench.report;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;

/**
 * The machine a benchmark ran on, printed with every report so figures are never read without it.
 *
 * @param cores available processors
 * @param memoryBytes physical memory
 * @param jvm JVM name and version
 * @param os operating system and architecture
 * @param peakHeapBytes peak heap use of this JVM (which hosts the server under test) so far
 */
public record Machine(int cores, long memoryBytes, String jvm, String os, long peakHeapBytes) {

  /** Reads the current machine and this JVM's peak heap use. */
  public static Machine current() {
    long memory = -1;
    if (ManagementFactory.getOperatingSystemMXBean()
        instanceof com.sun.management.OperatingSystemMXBean os) {
      memory = os.getTotalMemorySize();
    }
    long peak = 0;
    for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
      if (pool.getType() == MemoryType.HEAP && pool.getPeakUsage() != null) {
        peak += pool.getPeakUsage().getUsed();
      }
    }
    return new Machine(
        Runtime.getRuntime().availableProcessors(),
        memory,
        System.getProperty("java.vm.name") + " " + System.getProperty("java.version"),
        System.getProperty("os.name") + " " + System.getProperty("os.arch"),
        peak);
  }

  /** One line for the head of a report. */
  public String describe() {
    return String.format(
        "%d cores, %.1f GiB, %s, %s, peak heap %.0f MiB",
        cores, memoryBytes / (1024.0 * 1024 * 1024), jvm, os, peakHeapBytes / (1024.0 * 1024));
  }
}
