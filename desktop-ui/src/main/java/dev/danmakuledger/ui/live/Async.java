package dev.danmakuledger.ui.live;

import dev.danmakuledger.ui.client.ApiException;
import java.util.concurrent.Executor;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps network calls and verification off the FX thread: work runs on a small background executor,
 * results and failures are handed to the UI executor ({@code Platform::runLater} in the app, the
 * calling thread in view-model tests). An unexpected runtime failure in the work is logged with its
 * stack trace and reported as a server error, so the UI never waits forever.
 */
public final class Async {
  private static final Logger log = LoggerFactory.getLogger(Async.class);

  private final Executor background;
  private final Executor ui;
  private volatile boolean closed;

  public Async(Executor background, Executor ui) {
    this.background = background;
    this.ui = ui;
  }

  /**
   * Runs {@code work} in the background, then exactly one of the callbacks on the UI executor.
   *
   * @param what names the work in the log
   */
  public <T> void run(
      String what, ApiCall<T> work, Consumer<T> onSuccess, Consumer<ApiException> onFailure) {
    if (closed) {
      return;
    }
    background.execute(
        () -> {
          if (closed) {
            return;
          }
          T result;
          try {
            result = work.call();
          } catch (ApiException e) {
            ui(() -> onFailure.accept(e));
            return;
          } catch (RuntimeException e) {
            log.error("{} failed unexpectedly", what, e);
            ApiException failure =
                new ApiException(
                    ApiException.Kind.SERVER_ERROR,
                    0,
                    "Something went wrong while loading " + what + "; see the log.",
                    what + ": " + e,
                    e);
            ui(() -> onFailure.accept(failure));
            return;
          }
          ui(() -> onSuccess.accept(result));
        });
  }

  /** Runs {@code action} on the UI executor, unless closed by then. */
  public void ui(Runnable action) {
    if (!closed) {
      ui.execute(
          () -> {
            if (!closed) {
              action.run();
            }
          });
    }
  }

  /** Drops all later work and callbacks; the executors are the owner's to shut down. */
  public void close() {
    closed = true;
  }
}
