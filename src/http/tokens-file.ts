/**
 * `httpTokensFile`: who may call over HTTP, by name. A JSON object `{"<principal>": "<token>", …}`
 * in a file only its owner can read (mode 0600, or it is refused: a token others can read is no
 * secret). Each bearer token names a principal: its 2026-07-28 scripts, state and limits are its
 * own, and `list` shows it only its own scripts. Read at start (a bad file stops the start) and
 * again on SIGHUP (a bad file then keeps the tokens read before, and says why in the log).
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { CodemodeError } from '../support/errors.js';

/** A principal's name: what logs and refusals call it. */
const PRINCIPAL_NAME = /^[A-Za-z0-9._@-]{1,64}$/;

/** 16 characters: the shortest token accepted, as for --http-token. */
const TOKEN_MIN_CHARS = 16;

export class TokensFileError extends CodemodeError {
  override readonly name = 'TokensFileError';

  constructor(path: string, why: string) {
    super('TOKENS_FILE_INVALID', `${path}: ${why}`);
  }
}

/** The tokens, by the digest of each (compared in constant time), and whose each is. */
export class TokenTable {
  private constructor(private readonly entries: ReadonlyArray<{ readonly digest: Buffer; readonly principal: string }>) {}

  /** Reads and checks the file; throws TokensFileError saying what to fix. */
  static async read(path: string): Promise<TokenTable> {
    const info = await stat(path).catch((error: NodeJS.ErrnoException) => {
      throw new TokensFileError(path, `cannot be read (${error.code ?? error.message})`);
    });
    if ((info.mode & 0o077) !== 0) {
      const mode = (info.mode & 0o777).toString(8).padStart(3, '0');
      throw new TokensFileError(
        path,
        `its mode is ${mode}, so others may read its tokens; make it the owner's alone: chmod 600 ${path}`,
      );
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(await readFile(path, 'utf8'));
    } catch (error) {
      throw new TokensFileError(path, `is not JSON (${(error as Error).message})`);
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      throw new TokensFileError(path, 'must hold one JSON object, {"<principal>": "<token>", …}');
    }
    const entries: Array<{ digest: Buffer; principal: string }> = [];
    const seen = new Set<string>();
    for (const [principal, token] of Object.entries(parsed)) {
      if (!PRINCIPAL_NAME.test(principal)) {
        throw new TokensFileError(
          path,
          `principal ${JSON.stringify(principal.slice(0, 80))} must be 1 to 64 letters, digits, ".", "_", "@" or "-"`,
        );
      }
      if (typeof token !== 'string' || token.length < TOKEN_MIN_CHARS) {
        throw new TokensFileError(
          path,
          `the token of ${principal} must be a string of at least ${TOKEN_MIN_CHARS} characters; generate one with: openssl rand -hex 32`,
        );
      }
      if (seen.has(token))
        throw new TokensFileError(path, `the token of ${principal} is another principal's too; give each its own`);
      seen.add(token);
      entries.push({ digest: digestOf(token), principal });
    }
    if (entries.length === 0) throw new TokensFileError(path, 'names no principal; add {"<principal>": "<token>"}');
    return new TokenTable(entries);
  }

  get size(): number {
    return this.entries.length;
  }

  /** The principal whose token this is, or undefined. Every entry is compared, so the time says nothing of which. */
  principalOf(token: string): string | undefined {
    const digest = digestOf(token);
    let found: string | undefined;
    for (const entry of this.entries) if (timingSafeEqual(entry.digest, digest)) found ??= entry.principal;
    return found;
  }
}

function digestOf(token: string): Buffer {
  return createHash('sha256').update(token).digest();
}
