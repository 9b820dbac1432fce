/** In-process broadcast of confirmed room messages and operator events. */
package dev.danmakuledger.server.events;
