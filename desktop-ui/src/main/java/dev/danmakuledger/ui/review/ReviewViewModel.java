package dev.danmakuledger.ui.review;

import dev.danmakuledger.protocol.wire.admin.AdminEvent;
import dev.danmakuledger.protocol.wire.admin.ReviewDecision;
import dev.danmakuledger.protocol.wire.admin.ReviewItem;
import dev.danmakuledger.protocol.wire.admin.ReviewQueue;
import dev.danmakuledger.ui.client.ApiException;
import dev.danmakuledger.ui.live.ConsoleContext;
import dev.danmakuledger.ui.live.LiveFeed;
import dev.danmakuledger.ui.live.SingleFlight;
import javafx.beans.property.ReadOnlyBooleanProperty;
import javafx.beans.property.ReadOnlyBooleanWrapper;
import javafx.beans.property.ReadOnlyListProperty;
import javafx.beans.property.ReadOnlyListWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.collections.FXCollections;

/**
 * The review queue (docs/console.md, "Review queue"; docs/architecture.md §5 message state
 * machine): PENDING messages from {@code GET /admin/review}, approved or rejected with {@code POST
 * /admin/review/{messageId}} carrying the version the operator saw. The server's compare-and-set
 * answers 409 when somebody decided first; the console then says so and reloads the queue.
 */
public final class ReviewViewModel implements LiveFeed {
  /** What the operator reads when another decision won the compare-and-set. */
  public static final String CONFLICT_MESSAGE =
      "Someone else decided this message first, so nothing was changed. The queue has been"
          + " reloaded.";

  private final ConsoleContext context;
  private final SingleFlight flight = new SingleFlight(this::load);
  private final ReadOnlyBooleanWrapper loadedOnce = new ReadOnlyBooleanWrapper();
  private final ReadOnlyListWrapper<ReviewItem> items =
      new ReadOnlyListWrapper<>(FXCollections.observableArrayList());
  private final ReadOnlyStringWrapper message = new ReadOnlyStringWrapper("");
  private final ReadOnlyBooleanWrapper messageIsError = new ReadOnlyBooleanWrapper();
  private final ReadOnlyBooleanWrapper busy = new ReadOnlyBooleanWrapper();

  public ReviewViewModel(ConsoleContext context) {
    this.context = context;
  }

  /** The PENDING messages. */
  public ReadOnlyListProperty<ReviewItem> items() {
    return items.getReadOnlyProperty();
  }

  /** The result of the last decision, in one sentence; empty before any. */
  public ReadOnlyStringProperty message() {
    return message.getReadOnlyProperty();
  }

  public ReadOnlyBooleanProperty messageIsError() {
    return messageIsError.getReadOnlyProperty();
  }

  /** True while a decision is being sent. */
  public ReadOnlyBooleanProperty busy() {
    return busy.getReadOnlyProperty();
  }

  /** Approves {@code item}: it becomes CONFIRMED and is broadcast. */
  public void approve(ReviewItem item) {
    decide(item, new ReviewDecision(ReviewDecision.APPROVE, item.version(), null));
  }

  /** Rejects {@code item} for {@code reason}: it becomes REJECTED and is never broadcast. */
  public void reject(ReviewItem item, String reason) {
    String why = reason == null || reason.isBlank() ? "rejected by operator" : reason.strip();
    decide(item, new ReviewDecision(ReviewDecision.REJECT, item.version(), why));
  }

  /** True once the server's list was read at least once. */
  public ReadOnlyBooleanProperty loadedOnce() {
    return loadedOnce.getReadOnlyProperty();
  }

  @Override
  public void restore() {
    // The queue is only meaningful live: deciding on a stale queue would only produce conflicts.
  }

  @Override
  public void refresh() {
    flight.request();
  }

  @Override
  public void onEvent(AdminEvent event) {
    if (event.type() == AdminEvent.Type.MESSAGE || event.type() == AdminEvent.Type.ROOM) {
      flight.request();
    }
  }

  private void decide(ReviewItem item, ReviewDecision decision) {
    if (busy.get()) {
      return;
    }
    busy.set(true);
    context
        .async()
        .run(
            "the review decision",
            () -> {
              context.client().decide(item.messageId(), decision);
              return decision;
            },
            d -> {
              busy.set(false);
              String verb = ReviewDecision.APPROVE.equals(d.decision()) ? "Approved" : "Rejected";
              say(verb + " " + item.room() + " #" + item.seq() + " (" + item.user() + ").", false);
              items.remove(item);
              flight.request();
            },
            e -> {
              busy.set(false);
              if (e.kind() == ApiException.Kind.CONFLICT) {
                say(CONFLICT_MESSAGE, true);
              } else {
                say(e.plainMessage(), true);
                if (e.kind() == ApiException.Kind.UNREACHABLE
                    || e.kind() == ApiException.Kind.UNAUTHORIZED) {
                  context.connection().failed(e);
                }
              }
              flight.request();
            });
  }

  private void say(String text, boolean error) {
    message.set(text);
    messageIsError.set(error);
  }

  private void load(Runnable done) {
    context
        .async()
        .run(
            "the review queue",
            () -> context.client().reviewQueue(),
            (ReviewQueue q) -> {
              loadedOnce.set(true);
              if (!items.equals(q.items())) {
                items.setAll(q.items());
              }
              context.connection().succeeded();
              done.run();
            },
            e -> {
              context.connection().failed(e);
              done.run();
            });
  }
}
