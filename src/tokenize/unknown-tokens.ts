/** The one line an answer carries when tokens it was sent could not be put back. */

/** Tokens named in the line; the rest are counted. */
const UNKNOWN_TOKENS_NAMED = 10;

/**
 * `2 tokens were not restored (unknown here, or expired): [EMAIL_9], [PHONE_12]; they
 * were passed on as written.`, or null when there were none.
 */
export function describeUnknownTokens(unknown: readonly string[]): string | null {
  if (unknown.length === 0) return null;
  const named = unknown.slice(0, UNKNOWN_TOKENS_NAMED).join(', ');
  const more = unknown.length > UNKNOWN_TOKENS_NAMED ? ` and ${unknown.length - UNKNOWN_TOKENS_NAMED} more` : '';
  const count = unknown.length === 1 ? '1 token was' : `${unknown.length} tokens were`;
  return `${count} not restored (unknown here, or expired): ${named}${more}; passed on as written.`;
}
