/** The headless edge agent: offline capture, local dedupe, signed device log. */
package dev.danmakuledger.edge;
