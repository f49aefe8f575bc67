/**
 * The `code_execution` tool's description: the API in brief, then every allowed tool's name,
 * with a one-line summary while room lasts. Denied tools are not named.
 */

import type { Catalog, CatalogTool } from './types.js';

/**
 * 2,048 characters: the most the description may hold, since Claude Code cuts MCP tool
 * descriptions there. Past the API text, summaries give way to names, then names to a count.
 */
export const DESCRIPTION_MAX_CHARS = 2_048;

/** 80 characters: a tool's summary (first sentence or line of its description) is cut past it with "…". */
export const SUMMARY_MAX_CHARS = 80;

/**
 * 40 characters: the shortest summary cut. When every tool's summary won't fit at
 * SUMMARY_MAX_CHARS, all are cut shorter, down to this, before any tool loses its summary: a
 * short hint for every tool beats a long one for some. Past it, the first tools keep summaries
 * this long and the rest are named only.
 */
export const SUMMARY_MIN_CHARS = 40;

/**
 * 320 characters: an upstream's note (why it is down, with the last lines of its stderr; or that it
 * is still starting). A longer one keeps its start and its end, with "…" between.
 */
export const UPSTREAM_NOTE_MAX_CHARS = 320;

/**
 * 800 characters: all upstream notes together, their heading included, so the tools keep room
 * within DESCRIPTION_MAX_CHARS. Notes past it are counted, pointing at the server's log.
 */
export const UPSTREAM_NOTES_MAX_CHARS = 800;

/** The API, as terse as a model still reads it well. Each line is one idea. */
const API_TEXT = [
  'Runs JavaScript that calls the tools below: one script replaces many tool calls; shape results in code, return only what matters.',
  '{code}: body of an async function (top-level await; `return x` gives x as JSON). yield_ms: how long this call waits.',
  'In it: `await tools["name"](args)` → {content, structuredContent, isError} (text in content[0].text); Promise.all for parallel calls. ALL_TOOLS: every schema; describe(name): a tool\'s TypeScript declaration; searchTools(query): ranked tools.',
  'console.log/text() write output; notify(payload) tells the user now; sleep(ms), setTimeout.',
  'Errors: ToolRefused (nothing happened, safe to retry), TimeoutError, ResultTooLarge (the call took effect). isError:true may have taken effect.',
  'Past yield_ms a script returns "running" with its output so far and keeps going: {action:"wait",script:id} to watch again, {action:"stop",script:id}, {action:"list"}.',
  'No files, network or processes: only these tools.',
].join('\n');

export function describeCodeExecution(tools: Catalog): string {
  const allowed = tools.filter((t) => t.allowed);
  const names = allowed.map((t) => t.name);
  const api = `${API_TEXT}${notesText(tools.upstreamNotes ?? [])}`;
  if (names.length === 0) return `${api}\nNo tools are available right now.`;
  const head = `${api}\nTools (${names.length}):`;
  const sentences = allowed.map((t) => firstSentenceOf(t.description));
  const listed = (cut: number, withSummary: number): string =>
    withSummaries(head, names, sentences.map((s) => cutAtWord(s, cut)), withSummary);

  if (listed(SUMMARY_MAX_CHARS, names.length).length <= DESCRIPTION_MAX_CHARS) return listed(SUMMARY_MAX_CHARS, names.length);
  if (listed(SUMMARY_MIN_CHARS, names.length).length <= DESCRIPTION_MAX_CHARS) {
    // The longest cut at which every tool keeps a summary.
    let fits = SUMMARY_MIN_CHARS;
    let fails = SUMMARY_MAX_CHARS;
    while (fails - fits > 1) {
      const mid = Math.floor((fits + fails) / 2);
      if (listed(mid, names.length).length <= DESCRIPTION_MAX_CHARS) fits = mid;
      else fails = mid;
    }
    return listed(fits, names.length);
  }

  // Summaries for as many tools as fit beside the bare names of the rest.
  let best: string | undefined;
  for (let count = 0; count < names.length; count += 1) {
    const text = listed(SUMMARY_MIN_CHARS, count);
    if (text.length > DESCRIPTION_MAX_CHARS) break;
    best = text;
  }
  if (best !== undefined) return best;

  // Not even every name fits: as many as do, then a count of the rest.
  let shown = 0;
  let length = head.length + 1;
  const more = (left: number): string => `and ${left} more (see ALL_TOOLS / searchTools)`;
  for (const name of names) {
    const next = length + name.length + 2;
    if (next + more(names.length - shown - 1).length > DESCRIPTION_MAX_CHARS) break;
    length = next;
    shown += 1;
  }
  return `${head}\n${names.slice(0, shown).map((n) => `${n}, `).join('')}${more(names.length - shown)}`;
}

/** `\nUpstream servers not serving their tools now:\n- github is down: ...`, a line per upstream, within UPSTREAM_NOTES_MAX_CHARS. */
function notesText(notes: readonly string[]): string {
  if (notes.length === 0) return '';
  const heading = '\nUpstream servers not serving their tools now:';
  const more = (left: number): string => `\n- and ${left} more (see the server's log)`;
  let text = heading;
  for (const [index, note] of notes.entries()) {
    const line = `\n- ${cutMiddle(note.replace(/\s+/g, ' '), UPSTREAM_NOTE_MAX_CHARS)}`;
    const left = notes.length - index - 1;
    if (text.length + line.length + (left > 0 ? more(left).length : 0) > UPSTREAM_NOTES_MAX_CHARS) return text + more(left + 1);
    text += line;
  }
  return text;
}

/** Text cut to `max` characters by dropping its middle: a reason's start and its stderr's last words both survive. */
function cutMiddle(text: string, max: number): string {
  if (text.length <= max) return text;
  const head = Math.floor((max - 1) * 0.4);
  return `${text.slice(0, head)}…${text.slice(text.length - (max - 1 - head))}`;
}

/** The first `count` tools with their summaries, one a line, then the names of the rest on one line. */
function withSummaries(head: string, names: readonly string[], summaries: readonly string[], count: number): string {
  const lines = names.slice(0, count).map((name, i) => (summaries[i] ? `${name}: ${summaries[i]}` : name));
  const rest = names.slice(count);
  if (rest.length > 0) lines.push(`${count > 0 ? 'Also: ' : ''}${rest.join(', ')}`);
  return `${head}\n${lines.join('\n')}`;
}

/** The first sentence or line of a tool's description, on one line, cut at a word within `max` characters. */
export function summaryOf(tool: Pick<CatalogTool, 'description'>, max: number = SUMMARY_MAX_CHARS): string {
  return cutAtWord(firstSentenceOf(tool.description), max);
}

function firstSentenceOf(description: unknown): string {
  const text = typeof description === 'string' ? description : '';
  const firstLine =
    text
      .split(/\r?\n/, 50)
      .map((l) => l.replace(/^[\s#>*-]+/, '').trim())
      .find((l) => l !== '') ?? '';
  const end = firstLine.search(/[.!?](\s|$)/);
  return (end >= 0 ? firstLine.slice(0, end) : firstLine).replace(/\s+/g, ' ').trim();
}

function cutAtWord(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.lastIndexOf(' ', max - 1);
  return `${text.slice(0, cut > max / 2 ? cut : max - 1)}…`;
}
