/**
 * What the model is told when tokenize is on: one line for the code_execution description and
 * `codemode-mcp tools`, short because the description is cut at 2,048 characters.
 */
import { formatToken } from './token-text.js';

/**
 * `Personal data reaches you as tokens ([EMAIL_1], [PHONE_1], [NAME_1]): write one as it is in a
 * string and tools receive the real value; the same value keeps its token.`
 */
export function describeTokens(labels: readonly string[]): string {
  const examples = labels.length === 0 ? '' : ` (${labels.map((label) => formatToken(label, 1)).join(', ')})`;
  return `Personal data reaches you as tokens${examples}: write one as it is in a string and tools receive the real value; the same value keeps its token.`;
}
