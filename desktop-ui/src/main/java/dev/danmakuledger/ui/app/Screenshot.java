package dev.danmakuledger.ui.app;

import dev.danmakuledger.protocol.wire.RoomMessage;
import dev.danmakuledger.ui.live.ConnectionViewModel;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;
import javafx.animation.Animation;
import javafx.animation.KeyFrame;
import javafx.animation.PauseTransition;
import javafx.animation.Timeline;
import javafx.embed.swing.SwingFXUtils;
import javafx.scene.Scene;
import javafx.scene.image.WritableImage;
import javax.imageio.ImageIO;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code --screenshot} mode: waits until the chosen view shows server data (for the inspector:
 * until a lookup has been verified), lets layout and charts settle, writes the scene as PNG and
 * completes with the process exit code: 0 written with live data, 3 written without (timeout), 1
 * not written.
 */
final class Screenshot {
  private static final Logger log = LoggerFactory.getLogger(Screenshot.class);
  private static final javafx.util.Duration TICK = javafx.util.Duration.millis(200);

  private final ConsoleApp app;
  private final Scene scene;
  private final ViewName view;
  private final String inspect;
  private final Path out;
  private final Duration settle;
  private final long maxTicks;
  private final CompletableFuture<Integer> exit;
  private long ticks;
  private boolean lookedUp;

  Screenshot(
      ConsoleApp app,
      Scene scene,
      ViewName view,
      String inspect,
      Path out,
      Duration settle,
      Duration timeout,
      CompletableFuture<Integer> exit) {
    this.app = app;
    this.scene = scene;
    this.view = view;
    this.inspect = inspect;
    this.out = out;
    this.settle = settle;
    this.maxTicks = Math.max(1, timeout.toMillis() / (long) TICK.toMillis());
    this.exit = exit;
  }

  /** Starts waiting. Call on the FX thread after the app started. */
  void start() {
    Timeline poll = new Timeline();
    poll.getKeyFrames()
        .add(
            new KeyFrame(
                TICK,
                e -> {
                  ticks++;
                  if (ready()) {
                    poll.stop();
                    later(settle, () -> write(0));
                  } else if (ticks >= maxTicks) {
                    poll.stop();
                    log.warn("no live data for the {} view in time; capturing what is shown", view);
                    write(3);
                  }
                }));
    poll.setCycleCount(Animation.INDEFINITE);
    poll.play();
  }

  private boolean ready() {
    if (app.connection().state().get() != ConnectionViewModel.State.LIVE) {
      return false;
    }
    BooleanSupplier viewReady =
        switch (view) {
          case OVERVIEW -> () -> app.overview.overview().get() != null;
          case DEVICES -> () -> !app.devices.devices().isEmpty();
          case ROOMS -> () -> !app.rooms.rooms().isEmpty() && !app.rooms.tail().isEmpty();
          case REVIEW -> () -> app.review.loadedOnce().get();
          case ALERTS -> () -> app.alerts.loadedOnce().get();
          case INSTANCES -> () -> !app.instances.instances().isEmpty();
          case INSPECTOR -> this::inspected;
        };
    return viewReady.getAsBoolean();
  }

  private boolean inspected() {
    if (!lookedUp) {
      String query = inspect;
      if (query == null) {
        if (app.rooms.tail().isEmpty()) {
          return false;
        }
        RoomMessage m = app.rooms.tail().get(app.rooms.tail().size() - 1);
        query = m.messageId();
      }
      lookedUp = true;
      app.inspector.lookup(query);
      return false;
    }
    return !app.inspector.busy().get()
        && (app.inspector.verdict().get() != null || !app.inspector.error().get().isEmpty());
  }

  private static void later(Duration d, Runnable r) {
    PauseTransition p = new PauseTransition(javafx.util.Duration.millis(d.toMillis()));
    p.setOnFinished(e -> r.run());
    p.play();
  }

  private void write(int code) {
    try {
      WritableImage image = scene.snapshot(null);
      Path parent = out.toAbsolutePath().getParent();
      if (parent != null) {
        Files.createDirectories(parent);
      }
      if (!ImageIO.write(SwingFXUtils.fromFXImage(image, null), "png", out.toFile())) {
        throw new IOException("no PNG writer");
      }
      log.info("wrote {} ({}x{})", out, (int) image.getWidth(), (int) image.getHeight());
      exit.complete(code);
    } catch (IOException | RuntimeException e) {
      log.error("cannot write screenshot {}", out, e);
      exit.complete(1);
    }
  }
}
