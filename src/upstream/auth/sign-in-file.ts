/**
 * One remote server's sign-in on disk: its client registration and its tokens, in one JSON file per
 * server URL under the auth directory. The directory is 0700 and each file 0600, written whole to a
 * temporary file and renamed into place, so a reader never sees half a file. Read afresh at each
 * use, so a `codemode-mcp login` in another process is seen by a running server. Nothing here is
 * ever logged.
 */
import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { OAuthDiscoveryState, StoredOAuthClientInformation, StoredOAuthTokens } from '@modelcontextprotocol/client';

/** The auth directory's permissions: the user's alone. */
export const AUTH_DIRECTORY_MODE = 0o700;
/** Each sign-in file's permissions: the user's alone. */
export const SIGN_IN_FILE_MODE = 0o600;

/** Tokens as kept: the server's answer, plus when the access token expires (ms since the epoch). */
export type KeptTokens = StoredOAuthTokens & { expires_at?: number };

export interface SignIn {
  /** The server URL this sign-in is for. */
  serverUrl: string;
  /** The client registration (dynamic, or a metadata document URL) and the redirect URI it was made with. */
  client?: StoredOAuthClientInformation;
  redirectUri?: string;
  tokens?: KeptTokens;
  /** Where the server's authorization metadata was found, so a refresh needn't find it again. */
  discovery?: OAuthDiscoveryState;
}

export class SignInFile {
  readonly path: string;

  constructor(
    readonly directory: string,
    readonly serverUrl: string,
  ) {
    this.path = join(directory, signInFileName(serverUrl));
  }

  /** What is kept, or an empty sign-in; a file that isn't ours to read (not JSON, another URL) counts as empty. */
  read(): SignIn {
    let text: string;
    try {
      text = readFileSync(this.path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { serverUrl: this.serverUrl };
      throw error;
    }
    try {
      const kept = JSON.parse(text) as SignIn;
      return kept !== null && typeof kept === 'object' && kept.serverUrl === this.serverUrl
        ? kept
        : { serverUrl: this.serverUrl };
    } catch {
      return { serverUrl: this.serverUrl };
    }
  }

  /** Reads, changes and writes back the sign-in. */
  update(change: (signIn: SignIn) => SignIn): void {
    this.write(change(this.read()));
  }

  /** Deletes the file; true when there was one. */
  remove(): boolean {
    try {
      statSync(this.path);
    } catch {
      return false;
    }
    rmSync(this.path, { force: true });
    return true;
  }

  private write(signIn: SignIn): void {
    mkdirSync(this.directory, { recursive: true, mode: AUTH_DIRECTORY_MODE });
    // mkdir's mode is only for a directory it makes: one made by hand, or with a wider umask, is narrowed.
    chmodSync(this.directory, AUTH_DIRECTORY_MODE);
    const temporary = `${this.path}.${process.pid}.tmp`;
    writeFileSync(temporary, `${JSON.stringify(signIn, null, 2)}\n`, { mode: SIGN_IN_FILE_MODE });
    chmodSync(temporary, SIGN_IN_FILE_MODE);
    renameSync(temporary, this.path);
  }
}

/** `api.example.com-3f2a9c1d0b4e5a6f.json`: the host to read, a hash of the whole URL to tell paths and ports apart. */
export function signInFileName(serverUrl: string): string {
  const host = new URL(serverUrl).hostname.replace(/[^A-Za-z0-9.-]/g, '_');
  const hash = createHash('sha256').update(serverUrl).digest('hex').slice(0, 16);
  return `${host}-${hash}.json`;
}
