/** The console's local history file: chart samples and the last known state of every view. */
package dev.danmakuledger.ui.history;
