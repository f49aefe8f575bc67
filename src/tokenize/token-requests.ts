/**
 * The values one tokenize pass needs tokens for, each asked once however often it occurs, and
 * their tokens once the vault has answered.
 */
import type { TokenRequest, TokenScope, TokenVault } from './token-vault.js';
import type { TokenValue } from './token-text.js';

export class TokenRequests {
  private readonly requests: TokenRequest[] = [];
  private readonly index = new Map<string, number>();
  private tokens: readonly string[] = [];

  get size(): number {
    return this.requests.length;
  }

  add(label: string, value: TokenValue): void {
    const key = typeof value === 'string' ? `s${value}` : `n${value}`;
    if (this.index.has(key)) return;
    this.index.set(key, this.requests.length);
    this.requests.push({ label, value });
  }

  async resolve(vault: TokenVault, scope: TokenScope): Promise<void> {
    this.tokens = this.requests.length === 0 ? [] : await vault.tokensFor(scope, this.requests);
  }

  /** The token of a value added before resolve(). */
  tokenOf(value: TokenValue): string {
    const key = typeof value === 'string' ? `s${value}` : `n${value}`;
    return this.tokens[this.index.get(key)!]!;
  }
}
