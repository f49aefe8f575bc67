/**
 * The `code_execution` tool's description: the API, stated exactly, then every upstream server
 * by name with its tool count and what its tools are about, then its tools: with one-line
 * summaries while they fit, then bare names, then a pointer to searchTools. Denied tools are not
 * named. When some upstream offers resources, the API names `resources` too.
 */

import { SUMMARY_MAX_CHARS, cutAtWord, summarize } from '../../common/summary.js';
import { SEARCH_DEFAULT_LIMIT } from '../../common/search-tools.js';
import { SETTINGS, formatSettingValue } from '../config/settings.js';
import { fetchApprovalOf, type FetchOriginRule } from '../config/fetch-setting.js';
import { serverTopics } from './server-topics.js';
import type { Catalog, CatalogTool } from './types.js';

/**
 * 2,048 characters: the most the description may hold, since Claude Code cuts MCP tool
 * descriptions there. Past the API text, summaries give way to names, then names to counts;
 * every server stays named.
 */
export const DESCRIPTION_MAX_CHARS = 2_048;

/**
 * 40 characters: the shortest summary cut. When every tool's summary won't fit at
 * SUMMARY_MAX_CHARS, all are cut shorter, down to this, before any tool loses its summary: a
 * short hint for every tool beats a long one for some. Past it, each server's first tools keep
 * summaries this long and the rest are named only.
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

/**
 * 480 characters: the most the saved skills' list takes of the description. Past it the skills
 * are named without their descriptions, then as many names as fit and a count of the rest.
 */
export const SKILLS_MAX_CHARS = 480;

/** 80 characters: a saved skill's description as the list shows it, cut at a word. */
export const SKILL_SUMMARY_MAX_CHARS = 80;

/** A saved skill as the description names it. */
export interface SkillLine {
  readonly name: string;
  readonly description: string;
}

/** The `skills` line, when the server serves skills: how a script calls, saves and finds them. */
const SKILLS_TEXT =
  'skills.save({name,description,code,inputSchema?}) keeps a script body (input in scope); skills["name"](input) runs it here; skills.list(), .describe(name).';

export interface DescriptionOptions {
  /** The server's yieldMs: how long a run waits by default, as the description states it. */
  readonly yieldMs: number;
  /** The origins scripts may fetch (settings.fetch); none or absent: the description says there is no network. */
  readonly fetch?: readonly FetchOriginRule[];
  /** With tokenize on, the line on tokens (src/tokenize/tokens-note.ts), after the API. */
  readonly tokens?: string;
}

/**
 * 400 characters: the origins the fetch line names, with their methods. Past it the rest are
 * counted; a fetch to one of them works all the same.
 */
export const FETCH_ORIGINS_MAX_CHARS = 400;

/** The `resources` line, when some upstream offers resources: the calls and what each returns. */
const RESOURCES_TEXT =
  'resources.list()|templates() → [{uri|uriTemplate,name}]; resources.read(uri) → {contents:[{uri,text|blob}]}; errors as for tools.';

/** The approvals line, when some tool's calls wait for a person: what `[asks]` means for a script. */
export const APPROVALS_TEXT =
  '[asks]: a person approves its calls first; a call waits meanwhile ("waiting for approval"); denied: ToolRefused, not sent.';

/** The marker after a tool's name in the lists when its calls wait for a person. */
const ASKS_MARKER = ' [asks]';

/** The API: what a model must know to write a first script that works. Each line is one idea. */
function apiText(options: DescriptionOptions, resourcesOffered: boolean): string {
  const yieldDefault = formatSettingValue(SETTINGS.yieldMs, options.yieldMs);
  return [
    'Runs JavaScript or TypeScript that calls the tools below: one script, many calls; return only what matters.',
    `code: async function body (top-level await; \`return x\` gives x as JSON); each script starts fresh. Past yield_ms (default ${yieldDefault}) it answers "running" and goes on: {action:"wait"|"stop",script:id}, {action:"list"}.`,
    'await tools["name"](args) → {content:[{type:"text",text}|{type:"image"|"audio",data,mimeType}|{type:"resource",resource:{uri,text|blob}}], structuredContent? (tools with an output schema), isError?}; Promise.all runs calls at once.',
    'isError:true: the tool failed (may have taken effect). Thrown: ToolRefused (not sent; retry), TimeoutError (may still take effect), ResultTooLarge (took effect).',
    `searchTools(query, limit=${SEARCH_DEFAULT_LIMIT}) → [{name,description,score}]; console.log(describe(name)) prints one tool's declaration; ALL_TOOLS: [{name,description,inputSchema,outputSchema}] (large: use describe; never return it).`,
    ...(resourcesOffered ? [RESOURCES_TEXT] : []),
    'store(key,value,{ttlMs}?), load(key): JSON kept between scripts; state.keys(prefix?), state.remove(key).',
    `console.log/text() print; show(block|result) adds images/resources to the answer; notify(x) tells the user; sleep(ms). ${
      options.fetch !== undefined && options.fetch.length > 0
        ? 'No files, processes; network by fetch only:'
        : 'No files, network, processes.'
    }`,
    ...(options.fetch !== undefined && options.fetch.length > 0 ? [fetchText(options.fetch)] : []),
    ...(options.tokens !== undefined ? [options.tokens] : []),
  ].join('\n');
}

/**
 * `fetch(url,{…}) → Response…, only to: https://api.github.com (GET, POST [asks]); …`: what the
 * model may fetch, each origin with its methods (`[asks]` where a person approves), within
 * FETCH_ORIGINS_MAX_CHARS.
 */
function fetchText(rules: readonly FetchOriginRule[]): string {
  const origins = rules.map(
    (rule) =>
      `${rule.origin} (${rule.methods.map((method) => method + (fetchApprovalOf(rule, method) === 'ask' ? ASKS_MARKER : '')).join(', ')})`,
  );
  let named = '';
  let shown = 0;
  for (const origin of origins) {
    const next = shown === 0 ? origin : `${named}, ${origin}`;
    if (next.length > FETCH_ORIGINS_MAX_CHARS && shown > 0) break;
    named = next;
    shown++;
  }
  const more = origins.length - shown;
  return (
    'fetch(url,{method,headers,body,redirect}) → Response {status,ok,headers.get(),text(),json(),arrayBuffer()}; the server adds ' +
    `credentials. Only to: ${named}${more > 0 ? ` and ${more} more` : ''}. Others: ToolRefused FETCH_ORIGIN.`
  );
}

/** One upstream server's allowed tools, as the description lists them. */
interface ServerGroup {
  readonly server: string;
  /** The header: `files (14 tools: file, directory, search)`. */
  readonly header: string;
  /** Shorter, for when headers alone crowd the description: `files (14 tools)`. */
  readonly bareHeader: string;
  /** Tool names as the list shows them: without `server__` when the intro says how to call them. */
  readonly names: readonly string[];
  readonly summaries: readonly string[];
}

/** How much of each server's tool list a layout shows. */
type Layout =
  | { readonly kind: 'summaries'; readonly cut: number }
  | { readonly kind: 'some-summaries'; readonly perServer: number }
  | { readonly kind: 'names'; readonly perServer: number }
  | { readonly kind: 'headers'; readonly bare: boolean };

/**
 * `skills`: the saved skills, when the server serves skills to scripts (the list is read again
 * for each tools/list, so a saved or edited skill shows in the next one); absent, `skills` is
 * not named.
 */
export function describeCodeExecution(catalog: Catalog, options: DescriptionOptions, skills?: readonly SkillLine[]): string {
  const allowed = catalog.tools.filter((t) => t.allowed);
  const skillsPart = skills === undefined ? '' : `\n${SKILLS_TEXT}${skillsText(skills)}`;
  const fetchAsks = (options.fetch ?? []).some((rule) => rule.methods.some((method) => fetchApprovalOf(rule, method) === 'ask'));
  const approvalsPart = allowed.some((t) => t.approval === 'ask') || fetchAsks ? `\n${APPROVALS_TEXT}` : '';
  const api = `${apiText(options, catalog.resourcesOffered)}${approvalsPart}${skillsPart}${notesText(catalog.upstreamNotes)}`;
  if (allowed.length === 0) return `${api}\nNo tools are available right now.`;
  const groups = groupByServer(allowed);
  const head = `${api}\n${introOf(groups)}`;
  const render = (layout: Layout): string => `${head}\n${renderGroups(groups, layout)}`;
  const fits = (layout: Layout): boolean => render(layout).length <= DESCRIPTION_MAX_CHARS;

  if (fits({ kind: 'summaries', cut: SUMMARY_MAX_CHARS })) return render({ kind: 'summaries', cut: SUMMARY_MAX_CHARS });
  if (fits({ kind: 'summaries', cut: SUMMARY_MIN_CHARS })) {
    const cut = largest(SUMMARY_MIN_CHARS, SUMMARY_MAX_CHARS, (c) => fits({ kind: 'summaries', cut: c }));
    return render({ kind: 'summaries', cut });
  }
  const mostTools = Math.max(...groups.map((g) => g.names.length));
  if (fits({ kind: 'some-summaries', perServer: 1 })) {
    const perServer = largest(1, mostTools, (n) => fits({ kind: 'some-summaries', perServer: n }));
    return render({ kind: 'some-summaries', perServer });
  }
  if (fits({ kind: 'names', perServer: 0 })) {
    const perServer = largest(0, mostTools, (n) => fits({ kind: 'names', perServer: n }));
    return render({ kind: 'names', perServer });
  }
  if (fits({ kind: 'headers', bare: false })) return render({ kind: 'headers', bare: false });
  return fitHeaders(head, groups);
}

/** The largest n in [low, high] for which `ok` holds, given that it holds for `low` and, past some n, never again. */
function largest(low: number, high: number, ok: (n: number) => boolean): number {
  let fits = low;
  let fails = high + 1;
  while (fails - fits > 1) {
    const mid = Math.floor((fits + fails) / 2);
    if (ok(mid)) fits = mid;
    else fails = mid;
  }
  return fits;
}

function groupByServer(allowed: readonly CatalogTool[]): ServerGroup[] {
  const byServer = new Map<string, CatalogTool[]>();
  for (const tool of allowed) {
    const list = byServer.get(tool.server);
    if (list) list.push(tool);
    else byServer.set(tool.server, [tool]);
  }
  // With several servers every name is `server__tool`, which the intro says once.
  const prefixed = byServer.size > 1;
  return [...byServer].map(([server, list]) => {
    const topics = serverTopics(server, list);
    const count = `${list.length} tool${list.length === 1 ? '' : 's'}`;
    return {
      server,
      header: `${server} (${count}${topics.length > 0 ? `: ${topics.join(', ')}` : ''})`,
      bareHeader: `${server} (${count})`,
      names: list.map(
        (tool) =>
          (prefixed && tool.name === `${server}__${tool.upstreamName}` ? tool.upstreamName : tool.name) +
          (tool.approval === 'ask' ? ASKS_MARKER : ''),
      ),
      summaries: list.map((tool) => summarize(tool.description, Number.POSITIVE_INFINITY)),
    };
  });
}

function introOf(groups: readonly ServerGroup[]): string {
  if (groups.length === 1) return 'Tools; call one as tools["name"]:';
  return `Tools of ${groups.length} servers; call one as tools["<server>__<tool>"]:`;
}

function renderGroups(groups: readonly ServerGroup[], layout: Layout): string {
  const blocks = groups.map((group) => {
    const header = layout.kind === 'headers' && layout.bare ? group.bareHeader : group.header;
    const lines = [header];
    const { names, summaries } = group;
    switch (layout.kind) {
      case 'summaries':
        for (const [i, name] of names.entries()) lines.push(toolLine(name, cutAtWord(summaries[i]!, layout.cut)));
        break;
      case 'some-summaries': {
        const shown = Math.min(layout.perServer, names.length);
        for (let i = 0; i < shown; i++) lines.push(toolLine(names[i]!, cutAtWord(summaries[i]!, SUMMARY_MIN_CHARS)));
        if (shown < names.length) lines.push(`also: ${names.slice(shown).join(', ')}`);
        break;
      }
      case 'names': {
        const shown = Math.min(layout.perServer, names.length);
        const more = names.length - shown;
        if (shown > 0 || more > 0) {
          const listed = names.slice(0, shown).join(', ');
          lines.push(`${listed}${more > 0 ? `${shown > 0 ? ', ' : ''}+${more} more` : ''}`);
        }
        break;
      }
      case 'headers':
        break;
    }
    return lines.join('\n');
  });
  const complete =
    layout.kind === 'summaries' ||
    layout.kind === 'some-summaries' ||
    groups.every((g) => layout.kind === 'names' && layout.perServer >= g.names.length);
  const pointer = complete ? '' : '\nsearchTools(query) finds the tools not named here.';
  return `${blocks.join('\n')}${pointer}`;
}

function toolLine(name: string, summary: string): string {
  return summary ? `${name}: ${summary}` : name;
}

/** More servers than fit even by name and count: as many as fit, then a count of the rest. */
function fitHeaders(head: string, groups: readonly ServerGroup[]): string {
  const more = (left: number): string => `and ${left} more servers: searchTools(query) finds their tools`;
  let text = head;
  let shown = 0;
  for (const group of groups) {
    const next = `${text}\n${group.bareHeader}`;
    if (next.length + 1 + more(groups.length - shown - 1).length > DESCRIPTION_MAX_CHARS) break;
    text = next;
    shown += 1;
  }
  return `${text}\n${more(groups.length - shown)}`;
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

/** `\nSaved skills:` and a line each with its description, within SKILLS_MAX_CHARS; else names, then a count. */
function skillsText(skills: readonly SkillLine[]): string {
  if (skills.length === 0) return '';
  const heading = `\nSaved skills (${skills.length}):`;
  const lines = skills.map(
    ({ name, description }) =>
      `\n- ${name}: ${cutAtWord(summarize(description, Number.POSITIVE_INFINITY), SKILL_SUMMARY_MAX_CHARS)}`,
  );
  const full = `${heading}${lines.join('')}`;
  if (full.length <= SKILLS_MAX_CHARS) return full;
  const more = (left: number): string => (left > 0 ? `, +${left} more: skills.list()` : '');
  let text = `${heading} `;
  let shown = 0;
  for (const { name } of skills) {
    const next = `${text}${shown > 0 ? ', ' : ''}${name}`;
    if (next.length + more(skills.length - shown - 1).length > SKILLS_MAX_CHARS) break;
    text = next;
    shown += 1;
  }
  return `${text}${more(skills.length - shown)}`;
}
