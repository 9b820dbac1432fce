package dev.danmakuledger.edge.importer;

import java.util.List;

/**
 * What an import did: {@code entries} {@code <d>} elements read; {@code captured} new records;
 * {@code duplicates} entries already in the log (same key, same content); {@code conflicts} entries
 * whose key was used for other content (e.g. the same file imported into another room), with their
 * line; {@code skipped} malformed entries with their line; {@code fatal} the XML error that stopped
 * the import early (null when the whole file was read).
 */
public record ImportSummary(
    long entries,
    long captured,
    long duplicates,
    List<Skipped> conflicts,
    List<Skipped> skipped,
    String fatal) {
  public ImportSummary {
    conflicts = List.copyOf(conflicts);
    skipped = List.copyOf(skipped);
  }

  /** An entry not captured: its line in the file and why. */
  public record Skipped(long line, String reason) {}

  /** True when the whole file was read and no entry conflicted. */
  public boolean complete() {
    return fatal == null && conflicts.isEmpty();
  }
}
