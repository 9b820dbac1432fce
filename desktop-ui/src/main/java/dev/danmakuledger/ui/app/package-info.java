/**
 * The console program: command line, settings, object graph, main window and the screenshot mode.
 */
package dev.danmakuledger.ui.app;
