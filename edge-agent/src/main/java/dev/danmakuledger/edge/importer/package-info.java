/**
 * Bulk capture from Bilibili danmaku XML ({@code <d p="time,mode,size,color,unixSeconds,pool,
 * senderHash,rowId">text</d>}), with keys derived from the source entry so a re-import captures
 * nothing new.
 */
package dev.danmakuledger.edge.importer;
