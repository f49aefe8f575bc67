/**
 * searchTools(query): ranks tools by name and description. The engine runs it for the script (a
 * host function, so scoring runs in Node, not inside QuickJS): a pure function over
 * `{name, description}` entries.
 */

export interface SearchableTool {
  readonly name: string;
  readonly description?: string;
}

export interface SearchHit {
  readonly name: string;
  /** The description's first sentence or line, as in the code_execution tool's description. */
  readonly description: string;
  readonly score: number;
}

/** 10: hits returned when the script gives no limit. */
export const SEARCH_DEFAULT_LIMIT = 10;

/** 2,000: characters of a description that count toward its score; the rest is not read. */
export const SEARCH_DESCRIPTION_MAX_CHARS = 2_000;

/** 80: characters of a hit's summary; must equal SUMMARY_MAX_CHARS in src/catalog/description.ts (a test checks). */
export const SEARCH_SUMMARY_MAX_CHARS = 80;

// Weights: an exact name beats any token count; a name token beats any description token.
const EXACT_NAME = 100;
/** The query equals the part after `server__`. */
const EXACT_TOOL_PART = 60;
const NAME_TOKEN = 10;
const NAME_PREFIX = 4;
/** Every query token matched the name. */
const WHOLE_QUERY_IN_NAME = 15;
const DESCRIPTION_TOKEN = 3;
const DESCRIPTION_PREFIX = 1;
/** Prefix matches need at least this many characters, so "a" matches nothing by prefix. */
const PREFIX_MIN_CHARS = 3;

const STOP_WORDS = new Set([
  'a', 'an', 'and', 'are', 'as', 'at', 'be', 'by', 'for', 'from', 'in', 'into', 'is', 'it', 'of',
  'on', 'or', 'that', 'the', 'this', 'to', 'with',
]);

export function searchTools(tools: readonly SearchableTool[], query: string, limit: number = SEARCH_DEFAULT_LIMIT): SearchHit[] {
  const text = typeof query === 'string' ? query : String(query);
  const max = typeof limit === 'number' && Number.isFinite(limit) ? Math.max(0, Math.floor(limit)) : SEARCH_DEFAULT_LIMIT;
  const squashedQuery = squash(text);
  const all = tokenize(text);
  const queryTokens = unique(all.filter((t) => !STOP_WORDS.has(t)));
  // A query of only stop words still searches with them.
  const tokens = queryTokens.length > 0 ? queryTokens : unique(all);
  if (tokens.length === 0) return [];

  const scored: { name: string; description: string; score: number }[] = [];
  for (const tool of Array.isArray(tools) ? tools : []) {
    if (tool === null || typeof tool !== 'object' || typeof tool.name !== 'string') continue;
    const description = typeof tool.description === 'string' ? tool.description : '';
    const score = scoreOf(tool.name, description, squashedQuery, tokens);
    if (score > 0) scored.push({ name: tool.name, description, score });
  }
  scored.sort((a, b) => b.score - a.score || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  // Summaries only for the hits returned: summarizing every scoring tool cost more than scoring them.
  return scored.slice(0, max).map((hit) => ({ name: hit.name, description: summarize(hit.description), score: hit.score }));
}

function scoreOf(name: string, description: string, squashedQuery: string, tokens: readonly string[]): number {
  let score = 0;
  if (squashedQuery !== '') {
    if (squash(name) === squashedQuery) score += EXACT_NAME;
    else if (name.includes('__') && squash(name.slice(name.lastIndexOf('__') + 2)) === squashedQuery) score += EXACT_TOOL_PART;
  }

  const nameTokens = tokenize(name);
  const text = description.slice(0, SEARCH_DESCRIPTION_MAX_CHARS).toLowerCase();
  let inName = 0;
  for (const token of tokens) {
    if (nameTokens.includes(token)) {
      score += NAME_TOKEN;
      inName += 1;
    } else if (nameTokens.some((n) => prefixMatch(token, n))) {
      score += NAME_PREFIX;
      inName += 1;
    }
    const inText = matchInText(text, token);
    if (inText === 'word') score += DESCRIPTION_TOKEN;
    else if (inText === 'prefix') score += DESCRIPTION_PREFIX;
  }
  if (tokens.length > 1 && inName === tokens.length) score += WHOLE_QUERY_IN_NAME;
  return score;
}

/** One is a prefix of the other ("file" and "files", "repo" and "repository"), both long enough. */
function prefixMatch(a: string, b: string): boolean {
  if (a.length < PREFIX_MIN_CHARS || b.length < PREFIX_MIN_CHARS) return false;
  return a.length < b.length ? b.startsWith(a) : a.startsWith(b);
}

/**
 * Whether a lowercase text holds the token as a whole word, or a word it prefixes or that
 * prefixes it. Found with indexOf, not by tokenizing: a regex pass over 2,000 long
 * descriptions took seconds inside QuickJS.
 */
function matchInText(text: string, token: string): 'word' | 'prefix' | undefined {
  const probe = token.length > PREFIX_MIN_CHARS ? token.slice(0, PREFIX_MIN_CHARS) : token;
  let found: 'prefix' | undefined;
  for (let at = text.indexOf(probe); at !== -1; at = text.indexOf(probe, at + 1)) {
    if (at > 0 && isWordChar(text, at - 1)) continue;
    let end = at + probe.length;
    while (end < text.length && isWordChar(text, end)) end += 1;
    const word = text.slice(at, end);
    if (word === token) return 'word';
    if (prefixMatch(token, word)) found = 'prefix';
  }
  return found;
}

const WORD_CHAR = /[\p{L}\p{N}]/u;

function isWordChar(text: string, index: number): boolean {
  const code = text.charCodeAt(index);
  if (code < 128) return (code >= 48 && code <= 57) || (code >= 97 && code <= 122) || (code >= 65 && code <= 90);
  return WORD_CHAR.test(text.charAt(index));
}

/** Lowercase words: camelCase, snake_case, kebab-case, `server__tool` and punctuation all split. */
export function tokenize(text: string): string[] {
  return text
    .replace(/([\p{Ll}\p{N}])(\p{Lu})/gu, '$1 $2')
    .replace(/(\p{Lu})(\p{Lu}\p{Ll})/gu, '$1 $2')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((t) => t !== '');
}

function squash(text: string): string {
  return text.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');
}

function unique(items: readonly string[]): string[] {
  return [...new Set(items)];
}

/** The first sentence or line of a description, on one line, cut at a word: the rule of summaryOf in src/catalog. */
export function summarize(description: string): string {
  const firstLine =
    description
      .split(/\r?\n/, 50)
      .map((l) => l.replace(/^[\s#>*-]+/, '').trim())
      .find((l) => l !== '') ?? '';
  const end = firstLine.search(/[.!?](\s|$)/);
  const sentence = (end >= 0 ? firstLine.slice(0, end) : firstLine).replace(/\s+/g, ' ').trim();
  if (sentence.length <= SEARCH_SUMMARY_MAX_CHARS) return sentence;
  const cut = sentence.lastIndexOf(' ', SEARCH_SUMMARY_MAX_CHARS - 1);
  return `${sentence.slice(0, cut > SEARCH_SUMMARY_MAX_CHARS / 2 ? cut : SEARCH_SUMMARY_MAX_CHARS - 1)}…`;
}
