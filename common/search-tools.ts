/**
 * searchTools(query, limit): ranks tools by their names, descriptions and parameters. The engine
 * runs it for the script (a host function, so scoring runs in Node, not inside QuickJS): a pure
 * function over `{name, description, inputSchema}` entries, indexed once per catalog.
 */
import { summarize } from './summary.js';
import { STOP_WORDS, stem, tokenize } from './words.js';

export interface SearchableTool {
  readonly name: string;
  readonly description?: string;
  /** Its parameters' names and descriptions are searched too. */
  readonly inputSchema?: unknown;
}

export interface SearchHit {
  readonly name: string;
  /** The description's summary, as in the code_execution tool's description (a deprecation shown first). */
  readonly description: string;
  readonly score: number;
}

/** 10: hits returned when the script gives no limit. */
export const SEARCH_DEFAULT_LIMIT = 10;

/** 2,000: characters of a description, and of its parameters' words together, that count toward its score; the rest is not read. */
export const SEARCH_DESCRIPTION_MAX_CHARS = 2_000;

/** 1,000: characters of a query; a longer one is refused (searchTools throws a RangeError saying so), not searched. */
export const SEARCH_QUERY_MAX_CHARS = 1_000;

/** 32: distinct words of a query, stop words included; more are refused as a longer query is. */
export const SEARCH_QUERY_MAX_WORDS = 32;

/** 100: parameters read from a tool's input schema (its own and one level down). */
const PARAMETERS_READ_MAX = 100;

// Weights: an exact name beats any token count; a name word beats any description or parameter word.
const EXACT_NAME = 100;
/** The query equals the part after `server__`. */
const EXACT_TOOL_PART = 60;
const NAME_WORD = 10;
const NAME_STEM = 8;
const NAME_PREFIX = 4;
/** Every query word matched the name. */
const WHOLE_QUERY_IN_NAME = 15;
const DESCRIPTION_WORD = 3;
const PARAMETER_NAME_WORD = 2;
const DESCRIPTION_PREFIX = 1;
const PARAMETER_DESCRIPTION_WORD = 1;
/** Prefix matches need at least this many characters, so "a" matches nothing by prefix. */
const PREFIX_MIN_CHARS = 3;

/** A tool as it is searched: its words and their stems, made once per catalog. */
interface Indexed {
  readonly name: string;
  readonly description: string;
  readonly nameWords: readonly string[];
  readonly nameStems: readonly string[];
  /** The description's distinct words, for prefix matches, and their stems. */
  readonly descriptionWords: readonly string[];
  readonly descriptionStems: ReadonlySet<string>;
  readonly parameterNameStems: ReadonlySet<string>;
  readonly parameterDescriptionStems: ReadonlySet<string>;
}

const indexes = new WeakMap<readonly SearchableTool[], Indexed[]>();

/**
 * Why `query` is not searched, or undefined when it is. The work is words × tools, and the
 * script's child does it: a megabyte of query over 3,000 tools once ran for over a minute.
 */
export function searchQueryProblem(query: string): string | undefined {
  if (query.length > SEARCH_QUERY_MAX_CHARS) {
    return `searchTools: the query is ${query.length} characters, past ${SEARCH_QUERY_MAX_CHARS}; search with a few words`;
  }
  const words = new Set(tokenize(query)).size;
  if (words > SEARCH_QUERY_MAX_WORDS) {
    return `searchTools: the query has ${words} distinct words, past ${SEARCH_QUERY_MAX_WORDS}; search with a few words`;
  }
  return undefined;
}

/** Throws a RangeError for a query searchQueryProblem refuses. */
export function searchTools(tools: readonly SearchableTool[], query: string, limit: number = SEARCH_DEFAULT_LIMIT): SearchHit[] {
  const text = typeof query === 'string' ? query : String(query);
  const problem = searchQueryProblem(text);
  if (problem !== undefined) throw new RangeError(problem);
  const max = typeof limit === 'number' && Number.isFinite(limit) ? Math.max(0, Math.floor(limit)) : SEARCH_DEFAULT_LIMIT;
  const all = tokenize(text);
  const meaningful = unique(all.filter((t) => !STOP_WORDS.has(t)));
  // A query of only stop words still searches with them.
  const words = meaningful.length > 0 ? meaningful : unique(all);
  if (words.length === 0 || max === 0) return [];
  const wanted = { squashed: squash(text), words, stems: words.map(stem) };

  const scored: { tool: Indexed; score: number }[] = [];
  for (const tool of indexOf(tools)) {
    const score = scoreOf(tool, wanted);
    if (score > 0) scored.push({ tool, score });
  }
  scored.sort((a, b) => b.score - a.score || (a.tool.name < b.tool.name ? -1 : a.tool.name > b.tool.name ? 1 : 0));
  // Summaries only for the hits returned: summarizing every scoring tool cost more than scoring them.
  return scored.slice(0, max).map(({ tool, score }) => ({ name: tool.name, description: summarize(tool.description), score }));
}

interface Query {
  readonly squashed: string;
  readonly words: readonly string[];
  readonly stems: readonly string[];
}

function scoreOf(tool: Indexed, query: Query): number {
  let score = 0;
  if (query.squashed !== '') {
    if (squash(tool.name) === query.squashed) score += EXACT_NAME;
    else if (tool.name.includes('__') && squash(tool.name.slice(tool.name.lastIndexOf('__') + 2)) === query.squashed)
      score += EXACT_TOOL_PART;
  }
  let inName = 0;
  for (const [i, word] of query.words.entries()) {
    const wordStem = query.stems[i]!;
    if (tool.nameWords.includes(word)) {
      score += NAME_WORD;
      inName += 1;
    } else if (tool.nameStems.includes(wordStem)) {
      score += NAME_STEM;
      inName += 1;
    } else if (tool.nameWords.some((n) => prefixMatch(word, n))) {
      score += NAME_PREFIX;
      inName += 1;
    }
    if (tool.descriptionStems.has(wordStem)) score += DESCRIPTION_WORD;
    else if (tool.descriptionWords.some((w) => prefixMatch(word, w))) score += DESCRIPTION_PREFIX;
    if (tool.parameterNameStems.has(wordStem)) score += PARAMETER_NAME_WORD;
    else if (tool.parameterDescriptionStems.has(wordStem)) score += PARAMETER_DESCRIPTION_WORD;
  }
  if (query.words.length > 1 && inName === query.words.length) score += WHOLE_QUERY_IN_NAME;
  return score;
}

/** The catalog's index, made at its first search and kept while the catalog lives. */
function indexOf(tools: readonly SearchableTool[]): Indexed[] {
  const list: readonly SearchableTool[] = Array.isArray(tools) ? tools : [];
  let index = indexes.get(list);
  if (index === undefined) {
    index = [];
    for (const tool of list) {
      if (tool === null || typeof tool !== 'object' || typeof tool.name !== 'string') continue;
      index.push(indexTool(tool));
    }
    indexes.set(list, index);
  }
  return index;
}

function indexTool(tool: SearchableTool): Indexed {
  const description = typeof tool.description === 'string' ? tool.description : '';
  const nameWords = unique(tokenize(tool.name));
  const descriptionWords = unique(tokenize(description.slice(0, SEARCH_DESCRIPTION_MAX_CHARS)));
  const parameters = parametersOf(tool.inputSchema);
  return {
    name: tool.name,
    description,
    nameWords,
    nameStems: nameWords.map(stem),
    descriptionWords,
    descriptionStems: new Set(descriptionWords.map(stem)),
    parameterNameStems: new Set(tokenize(parameters.names.join(' ')).map(stem)),
    parameterDescriptionStems: new Set(
      tokenize(parameters.descriptions.join(' ').slice(0, SEARCH_DESCRIPTION_MAX_CHARS)).map(stem),
    ),
  };
}

/** The names and descriptions of a schema's properties, its own and one level down (objects and arrays of objects). */
function parametersOf(schema: unknown): { names: string[]; descriptions: string[] } {
  const names: string[] = [];
  const descriptions: string[] = [];
  const read = (node: unknown, depth: number): void => {
    const properties = isObject(node) ? node.properties : undefined;
    if (!isObject(properties)) return;
    for (const [name, property] of Object.entries(properties)) {
      if (names.length >= PARAMETERS_READ_MAX) return;
      names.push(name);
      if (!isObject(property)) continue;
      if (typeof property.description === 'string') descriptions.push(property.description);
      if (depth > 0) continue;
      read(property, depth + 1);
      read(property.items, depth + 1);
    }
  };
  read(schema, 0);
  return { names, descriptions };
}

/** One is a prefix of the other ("file" and "files", "repo" and "repository"), both long enough. */
function prefixMatch(a: string, b: string): boolean {
  if (a.length < PREFIX_MIN_CHARS || b.length < PREFIX_MIN_CHARS) return false;
  return a.length < b.length ? b.startsWith(a) : a.startsWith(b);
}

function squash(text: string): string {
  return text.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');
}

function unique(items: readonly string[]): string[] {
  return [...new Set(items)];
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
