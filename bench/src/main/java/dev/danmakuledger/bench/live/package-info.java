/** {@code bin/bench live}: latency of the cross-instance room stream. */
package dev.danmakuledger.bench.live;
