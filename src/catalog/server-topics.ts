/**
 * A few words of what an upstream server's tools are about, for the description: the words its
 * tools' names and summaries share most ("file, directory", "entity, relation, graph"), so a model
 * knows a billing server holds invoices before it searches.
 */
import { summarize } from '../../common/summary.js';
import { STOP_WORDS, stem, tokenize } from '../../common/words.js';
import type { CatalogTool } from './types.js';

/** 3: topic words per server; more only while tied with the third (5 at most). */
export const SERVER_TOPICS_MAX = 3;

/** 5: topic words per server when the next ones are as shared as the third. */
const SERVER_TOPICS_TIED_MAX = 5;

/** Verbs and filler every server's tools use: they say what a tool does, not what it is about. */
const GENERIC = new Set(
  [
    'get',
    'list',
    'create',
    'update',
    'delete',
    'set',
    'add',
    'remove',
    'read',
    'write',
    'edit',
    'make',
    'find',
    'fetch',
    'return',
    'returns',
    'new',
    'all',
    'one',
    'each',
    'any',
    'multiple',
    'specific',
    'given',
    'tool',
    'server',
    'use',
    'using',
    'based',
    'about',
    'information',
    'info',
    'data',
    'details',
    'detail',
    'including',
    'existing',
    'more',
    'other',
    'which',
    'when',
    'their',
    'them',
    'your',
    'you',
    'not',
    'only',
    'also',
    'will',
    'may',
    'has',
    'have',
    'was',
    'these',
    'those',
    'such',
    'into',
    'out',
    'up',
    'off',
    'via',
    'per',
    'id',
    'ids',
    'by',
    'mcp',
    'call',
    'calls',
    'do',
    'does',
    'complete',
    'entire',
    'specified',
    'detailed',
    'various',
    'different',
    'current',
    'optional',
    'available',
    'several',
  ].map(stem),
);

/** Up to SERVER_TOPICS_MAX words its tools share, most shared first; words from tool names count double. */
export function serverTopics(server: string, tools: readonly CatalogTool[]): string[] {
  const own = new Set(tokenize(server).map(stem));
  const counts = new Map<string, { score: number; tools: number; first: number; forms: Map<string, number> }>();
  let order = 0;
  for (const tool of tools) {
    const seen = new Set<string>();
    const words = [
      ...tokenize(tool.upstreamName).map((word) => ({ word, weight: 2 })),
      ...tokenize(summarize(tool.description)).map((word) => ({ word, weight: 1 })),
    ];
    for (const { word, weight } of words) {
      if (word.length < 3 || STOP_WORDS.has(word) || /^\d/.test(word)) continue;
      const key = stem(word);
      if (GENERIC.has(key) || own.has(key) || seen.has(key)) continue;
      seen.add(key);
      let entry = counts.get(key);
      if (entry === undefined) counts.set(key, (entry = { score: 0, tools: 0, first: order++, forms: new Map() }));
      entry.score += weight;
      entry.tools += 1;
      entry.forms.set(word, (entry.forms.get(word) ?? 0) + 1);
    }
  }
  // With more than a couple of tools, a topic is a word at least two of them share.
  const minTools = tools.length > 2 ? 2 : 1;
  const ranked = [...counts.values()]
    .filter((entry) => entry.tools >= minTools)
    .sort((a, b) => b.score - a.score || a.first - b.first);
  const third = ranked[SERVER_TOPICS_MAX - 1]?.score;
  const tied = ranked.slice(SERVER_TOPICS_MAX, SERVER_TOPICS_TIED_MAX).filter((entry) => entry.score === third).length;
  return ranked
    .slice(0, SERVER_TOPICS_MAX + tied)
    .map((entry) => [...entry.forms].sort((a, b) => b[1] - a[1] || a[0].length - b[0].length)[0]![0]);
}
