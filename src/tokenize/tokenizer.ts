/**
 * The tokenizer (issue 48, docs/tokenize.md): one per server when `settings.tokenize` is on, and a
 * scope's view of it for each session or principal. Everything toward the client goes through
 * `tokenize*`, everything from it through `restore*`; `argumentsFor` is what an upstream gets.
 * Pure over values: nothing here writes a log line, a span or an audit line, and no value it
 * keeps leaves it but through a restore.
 */
import { matchesAnyGlob } from '../config/tool-policy.js';
import type { TokenizeSettings } from '../config/tokenize-setting.js';
import { Detectors } from './detectors.js';
import { restoreText, restoreValue, type Restored } from './restore-value.js';
import { tokenizeText, tokenizeValue } from './tokenize-value.js';
import { MemoryTokenVault, type TokenScope, type TokenVault } from './token-vault.js';

export type { Restored } from './restore-value.js';
export type { TokenScope } from './token-vault.js';

/** A scope's tokens: what one session (or one principal over HTTP) sends and receives. */
export interface ScopeTokens {
  /** A text toward the client, each detected value replaced by its token. */
  tokenizeText(text: string): Promise<string>;
  /** A JSON value toward the client: its strings (and keys) scanned, values under configured fields tokenized whole. */
  tokenizeValue(value: unknown): Promise<unknown>;
  /** A text from the client with this scope's tokens put back, wherever they stand. */
  restoreText(text: string): Promise<Restored<string>>;
  /** A JSON value from the client: a string that is one token whole becomes the value itself (a number stays a number). */
  restoreValue(value: unknown): Promise<Restored<unknown>>;
  /** A script's code: each token's value written as a string literal's contents, escaped for any quote. */
  restoreCode(code: string): Promise<Restored<string>>;
  /**
   * A call's arguments as the upstream `server` gets them: restored when `restore` names it;
   * otherwise tokenized, so that server never receives a value a detector matches.
   */
  argumentsFor(server: string, args: unknown): Promise<Restored<unknown>>;
}

export class Tokenizer {
  private readonly detectors: Detectors;

  constructor(
    private readonly settings: TokenizeSettings,
    private readonly vault: TokenVault = new MemoryTokenVault(settings),
  ) {
    this.detectors = new Detectors(settings);
  }

  /** Whether the upstream `server` receives real values (`settings.tokenize.restore`, globs over server names). */
  restoresTo(server: string): boolean {
    return matchesAnyGlob(this.settings.restore, server);
  }

  /** The tokens labels these settings give: `[EMAIL_n]`, `[NAME_n]`, ... */
  get labels(): readonly string[] {
    return this.detectors.labels;
  }

  forScope(scope: TokenScope): ScopeTokens {
    const { detectors, vault } = this;
    const restoreValueIn = (value: unknown) => restoreValue(value, detectors, vault, scope);
    const tokenizeValueIn = (value: unknown) => tokenizeValue(value, detectors, vault, scope);
    return {
      tokenizeText: (text) => tokenizeText(text, detectors, vault, scope),
      tokenizeValue: tokenizeValueIn,
      restoreText: (text) => restoreText(text, detectors, vault, scope),
      restoreValue: restoreValueIn,
      restoreCode: (code) => restoreText(code, detectors, vault, scope, true),
      argumentsFor: async (server, args) =>
        this.restoresTo(server) ? restoreValueIn(args) : { value: await tokenizeValueIn(args), unknown: [] },
    };
  }

  /** Forgets a scope that can't come back (an HTTP session that ended): its tokens and its numbering. */
  forget(scope: TokenScope): Promise<void> {
    return this.vault.forget(scope);
  }
}
