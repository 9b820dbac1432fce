package dev.danmakuledger.edge.cli;

import dev.danmakuledger.edge.importer.ImportProgress;
import java.io.PrintWriter;

/** A one-line progress bar redrawn with carriage returns; only used on a terminal. */
final class ProgressBar implements ImportProgress {
  private static final int WIDTH = 30;
  private final PrintWriter err;
  private final String label;

  ProgressBar(PrintWriter err, String label) {
    this.err = err;
    this.label = label;
  }

  @Override
  public void update(long done, long total) {
    if (total <= 0) {
      err.printf("\r%s %d", label, done);
    } else {
      int filled = (int) Math.min(WIDTH, done * WIDTH / total);
      err.printf(
          "\r%s [%s%s] %d/%d %3d%%",
          label, "#".repeat(filled), " ".repeat(WIDTH - filled), done, total, done * 100 / total);
    }
    err.flush();
  }

  void finish() {
    err.println();
    err.flush();
  }
}
