package dev.danmakuledger.ui.live;

import dev.danmakuledger.ui.client.ApiException;

/** Blocking work for the background executor: server calls and local verification. */
@FunctionalInterface
public interface ApiCall<T> {
  T call() throws ApiException;
}
