/**
 * Tokens put back: in a text, in a JSON value (a string that is one token whole becomes the value
 * itself, a number for a number; a token inside a string, its text), and in a script's code, where
 * a token stands in a string literal and its value is written escaped for one. A token the scope
 * doesn't know (unknown, expired, another scope's) stays as written and is reported.
 */
import type { Detectors } from './detectors.js';
import type { TokenValue } from './token-text.js';
import type { TokenScope, TokenVault } from './token-vault.js';

export interface Restored<T> {
  readonly value: T;
  /** The tokens left as written because this scope has no value for them, each once, in order met. */
  readonly unknown: readonly string[];
}

/** The tokens met in one restore and, once the vault has answered, their values. */
class Lookup {
  private readonly values = new Map<string, TokenValue | undefined>();

  constructor(private readonly detectors: Detectors) {}

  get size(): number {
    return this.values.size;
  }

  collect(text: string): void {
    if (!text.includes('[')) return;
    for (const { token } of this.detectors.findTokens(text)) this.values.set(token, undefined);
  }

  async resolve(vault: TokenVault, scope: TokenScope): Promise<void> {
    const tokens = [...this.values.keys()];
    const values = await vault.valuesOf(scope, tokens);
    tokens.forEach((token, i) => this.values.set(token, values[i]));
  }

  valueOf(token: string): TokenValue | undefined {
    return this.values.get(token);
  }

  unknown(): string[] {
    return [...this.values].filter(([, value]) => value === undefined).map(([token]) => token);
  }

  /** `text` with each known token replaced by `write(value)`. */
  replace(text: string, write: (value: TokenValue) => string): string {
    if (!text.includes('[')) return text;
    let out = '';
    let at = 0;
    for (const { token, start, end } of this.detectors.findTokens(text)) {
      const value = this.values.get(token);
      if (value === undefined) continue;
      out += text.slice(at, start) + write(value);
      at = end;
    }
    return at === 0 ? text : out + text.slice(at);
  }
}

/** A value as the text of a JavaScript string literal's contents, whichever quote or backtick opens it. */
function asLiteralContents(value: TokenValue): string {
  return JSON.stringify(String(value)).slice(1, -1).replace(/'/g, "\\'").replace(/`/g, '\\`').replace(/\$\{/g, '\\${');
}

function collectIn(value: unknown, lookup: Lookup): void {
  if (typeof value === 'string') lookup.collect(value);
  else if (Array.isArray(value)) for (const item of value) collectIn(item, lookup);
  else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      lookup.collect(key);
      collectIn(item, lookup);
    }
  }
}

function restoreIn(value: unknown, lookup: Lookup): unknown {
  if (typeof value === 'string') {
    const whole = value.startsWith('[') && value.endsWith(']') ? lookup.valueOf(value) : undefined;
    return whole ?? lookup.replace(value, String);
  }
  if (Array.isArray(value)) return value.map((item) => restoreIn(item, lookup));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [lookup.replace(key, String), restoreIn(item, lookup)]));
  }
  return value;
}

export async function restoreText(
  text: string,
  detectors: Detectors,
  vault: TokenVault,
  scope: TokenScope,
  asCode = false,
): Promise<Restored<string>> {
  const lookup = new Lookup(detectors);
  lookup.collect(text);
  if (lookup.size === 0) return { value: text, unknown: [] };
  await lookup.resolve(vault, scope);
  return { value: lookup.replace(text, asCode ? asLiteralContents : String), unknown: lookup.unknown() };
}

export async function restoreValue(
  value: unknown,
  detectors: Detectors,
  vault: TokenVault,
  scope: TokenScope,
): Promise<Restored<unknown>> {
  const lookup = new Lookup(detectors);
  collectIn(value, lookup);
  if (lookup.size === 0) return { value, unknown: [] };
  await lookup.resolve(vault, scope);
  return { value: restoreIn(value, lookup), unknown: lookup.unknown() };
}
