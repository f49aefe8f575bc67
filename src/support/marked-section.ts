/**
 * A part of a document made by code (the settings table, the error codes) between two HTML comment
 * markers, written anew there while the rest of the document stays as it was.
 */

/** `text` with `body` between `start` and `end`; null when it has no such markers. */
export function writeBetweenMarkers(text: string, start: string, end: string, body: string): string | null {
  const from = text.indexOf(start);
  const to = text.indexOf(end);
  if (from === -1 || to < from) return null;
  return `${text.slice(0, from + start.length)}\n${body}\n\n${text.slice(to)}`;
}
