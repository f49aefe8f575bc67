/**
 * The values one tokenize pass needs tokens for, each asked once however often it occurs, and
 * their tokens once the vault has answered. Strings and numbers are kept apart, so neither needs
 * a key made for it.
 */
import type { TokenRequest, TokenScope, TokenVault } from './token-vault.js';
import type { TokenValue } from './token-text.js';

export class TokenRequests {
  private readonly requests: TokenRequest[] = [];
  private readonly strings = new Map<string, number>();
  private readonly numbers = new Map<number, number>();
  private tokens: readonly string[] = [];

  get size(): number {
    return this.requests.length;
  }

  add(label: string, value: TokenValue): void {
    const index = typeof value === 'string' ? this.strings : this.numbers;
    if ((index as Map<TokenValue, number>).has(value)) return;
    (index as Map<TokenValue, number>).set(value, this.requests.length);
    this.requests.push({ label, value });
  }

  async resolve(vault: TokenVault, scope: TokenScope): Promise<void> {
    this.tokens = this.requests.length === 0 ? [] : await vault.tokensFor(scope, this.requests);
  }

  /** The token of a value added before resolve(). */
  tokenOf(value: TokenValue): string {
    const index = typeof value === 'string' ? this.strings.get(value) : this.numbers.get(value);
    return this.tokens[index!]!;
  }
}
