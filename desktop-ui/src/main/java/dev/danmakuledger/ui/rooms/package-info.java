/** Rooms: sequence state per room and a live tail of confirmed danmaku. */
package dev.danmakuledger.ui.rooms;
