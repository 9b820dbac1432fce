package dev.danmakuledger.ui.live;

/**
 * Coalesces refresh requests: while one load runs, any number of further requests cause exactly one
 * more load after it. Bursts of live events therefore never queue a call per event. Used only on
 * the UI thread.
 */
public final class SingleFlight {
  /** Starts one load; the load calls the given {@code done} when it has finished either way. */
  public interface Load {
    void start(Runnable done);
  }

  private final Load load;
  private boolean running;
  private boolean again;

  public SingleFlight(Load load) {
    this.load = load;
  }

  /** Starts a load now, or once more after the running one. */
  public void request() {
    if (running) {
      again = true;
      return;
    }
    running = true;
    load.start(this::finished);
  }

  private void finished() {
    running = false;
    if (again) {
      again = false;
      request();
    }
  }
}
