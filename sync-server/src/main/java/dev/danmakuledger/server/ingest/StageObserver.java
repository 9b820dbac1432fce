package dev.danmakuledger.server.ingest;

/**
 * Watches the stages of {@link BatchIngest}: timing for the metrics and a span for the trace
 * (docs/operations.md). Called on the request thread; implementations must be thread-safe.
 */
public interface StageObserver {
  /** Observes nothing. */
  StageObserver NONE = stage -> Scope.NONE;

  /** Called when {@code stage} starts; the returned scope is ended when it finishes. */
  Scope start(PipelineStage stage);

  /** Reports every stage to each of {@code observers}, in order (ended in reverse). */
  static StageObserver all(StageObserver... observers) {
    StageObserver[] copy = observers.clone();
    return stage -> {
      Scope[] scopes = new Scope[copy.length];
      for (int i = 0; i < copy.length; i++) {
        scopes[i] = copy[i].start(stage);
      }
      return new Scope() {
        @Override
        public void failed(Exception e) {
          for (Scope s : scopes) {
            s.failed(e);
          }
        }

        @Override
        public void end() {
          for (int i = scopes.length - 1; i >= 0; i--) {
            scopes[i].end();
          }
        }
      };
    };
  }

  /** One running stage. */
  interface Scope {
    /** A scope that records nothing. */
    Scope NONE =
        new Scope() {
          @Override
          public void failed(Exception e) {}

          @Override
          public void end() {}
        };

    /** Marks the stage as failed with {@code e} (before {@link #end()}). */
    void failed(Exception e);

    /** Ends the stage; called exactly once. */
    void end();
  }
}
