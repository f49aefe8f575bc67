/**
 * A tool's one-line summary, the one rule behind the code_execution description, `codemode-mcp
 * tools` and searchTools' hits: the first sentence of its description, unless the description
 * says the tool is deprecated, in which case the sentence that says so.
 */

/** 80 characters: a summary is cut past it, at a word, with "…". */
export const SUMMARY_MAX_CHARS = 80;

/** Lines of a description read for its summary: a summary lies near the top, and a hostile description may be long. */
const LINES_READ = 50;

/** "DEPRECATED", "Deprecated:", "deprecated." as a word: the tool is on its way out, and the summary says so first. */
const DEPRECATED = /\bdeprecated\b/i;

export function summarize(description: unknown, max: number = SUMMARY_MAX_CHARS): string {
  const text = typeof description === 'string' ? description : '';
  const lines = text
    .split(/\r?\n/, LINES_READ)
    .map((line) => line.replace(/^[\s#>*-]+/, '').trim())
    .filter((line) => line !== '');
  const first = firstSentence(lines[0] ?? '');
  const deprecatedLine = lines.find((line) => DEPRECATED.test(line));
  if (deprecatedLine === undefined) return cutAtWord(first, max);
  // The deprecation is what a reader must see: "DEPRECATED: Use read_text_file instead".
  const from = deprecatedLine.slice(deprecatedLine.search(DEPRECATED));
  const notice = firstSentence(from.replace(DEPRECATED, 'DEPRECATED'));
  const summary = DEPRECATED.test(first) || first === '' ? notice : `${notice} (${first})`;
  return cutAtWord(summary, max);
}

/** A line's first sentence, on one line: up to the first . ! or ? that ends a word ("v1.2" is no end). */
function firstSentence(line: string): string {
  const end = line.search(/[.!?](\s|$)/);
  return (end >= 0 ? line.slice(0, end) : line).replace(/\s+/g, ' ').trim();
}

/** Cut at a word within `max` characters, ending in "…"; a word longer than half of it is cut where it stands. */
export function cutAtWord(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.lastIndexOf(' ', max - 1);
  return `${text.slice(0, cut > max / 2 ? cut : max - 1)}…`;
}
