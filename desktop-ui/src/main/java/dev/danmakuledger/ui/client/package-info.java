/**
 * The console's HTTP side: the admin and inspector calls of the sync server's API, the live
 * server-sent event feed with reconnect backoff, and the failure classes an operator sees.
 */
package dev.danmakuledger.ui.client;
