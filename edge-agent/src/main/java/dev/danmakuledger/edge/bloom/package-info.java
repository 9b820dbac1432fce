/**
 * Edge duplicate check 1 (docs/architecture.md §5): a Bloom filter that answers "definitely new"
 * for almost every capture, in rotating generations so memory stays bounded.
 */
package dev.danmakuledger.edge.bloom;
