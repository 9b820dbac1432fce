/** The overview: headline counters, throughput and duplicate-rate charts, breakdowns. */
package dev.danmakuledger.ui.overview;
