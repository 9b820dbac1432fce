/**
 * C2SP tlog-tiles: the static-file form of an RFC 6962 log. Tile coordinates and paths, writing the
 * tiles and entry bundles of a growing log incrementally, and reading roots and proofs back from
 * tiles fetched from any source.
 */
package dev.danmakuledger.merkle.tiles;
