import { readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';

import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import type { ElicitRequest, ElicitResult } from '@modelcontextprotocol/client';
import { remotePerTest } from '../upstream/specs.js';
import { fixturePath, stderrLine, textOf, writeConfig } from '../support/mcp-client.js';
import { startInProcess, type InProcessServer } from '../support/in-process-server.js';
import { runInProcess } from '../support/in-process-command.js';
import { makeTempDir } from '../support/temp-dirs.js';
import { until } from '../support/waiting.js';

const scratch = remotePerTest();
let dir: string;
let running: InProcessServer | undefined;

// The server and the commands run in this process, and keep their sign-ins under XDG_CONFIG_HOME, read from its environment.
beforeEach(() => {
  dir = makeTempDir('oauth');
  vi.stubEnv('XDG_CONFIG_HOME', join(dir, 'config'));
});
afterEach(async () => {
  expect(await running?.close()).toEqual(running === undefined ? undefined : []);
  running = undefined;
  vi.unstubAllEnvs();
  rmSync(dir, { recursive: true, force: true });
});

/** The OAuth-protected fixture (its own authorization server on the same port); its base URL. */
async function startFixture(): Promise<string> {
  const [, port] = await scratch.serve([fixturePath('upstreams/oauth-protected.mjs')], {}, /listening on (\d+)/);
  return `http://127.0.0.1:${port}`;
}

const authDir = (): string => join(dir, 'config', 'codemode-mcp', 'auth');

function configFor(base: string, extra: Record<string, unknown> = {}): string {
  return writeConfig({ oauthy: { type: 'http', url: `${base}/mcp`, ...extra } });
}

/** What a browser does with the sign-in link: the fixture approves at once and redirects to our loopback port. */
async function follow(link: string): Promise<Response> {
  const authorization = await fetch(link, { redirect: 'manual' });
  return fetch(authorization.headers.get('location')!);
}

/** `codemode-mcp login oauthy --no-browser`, its link followed; its exit code and stderr. */
async function login(
  config: string,
  verb: 'login' | 'logout' = 'login',
  beforeFollowing: (link: string) => Promise<void> = async () => {},
): Promise<{ code: number | null; stderr: string; pages: string[] }> {
  const pages: Promise<string>[] = [];
  const { exitCode, stderr } = await runInProcess(
    [verb, 'oauthy', '--config', config, '--no-browser'].slice(0, verb === 'login' ? 5 : 4),
    {
      onStderrLine: (line) => {
        const link = /^\s+(http:\/\/\S+)$/.exec(line);
        if (link !== null)
          pages.push(
            beforeFollowing(link[1]!).then(async () => {
              const page = await follow(link[1]!);
              return `${page.status} ${await page.text()}`;
            }),
          );
      },
    },
  );
  return { code: exitCode, stderr: `${stderr}\n`, pages: await Promise.all(pages) };
}

/** A client whose person takes each sign-in link offered by URL elicitation (its message kept) and signs in. */
function signingInPerson(offered: string[]) {
  return {
    capabilities: { elicitation: { url: {} } },
    onElicit: (request: ElicitRequest): ElicitResult => {
      const params = request.params;
      if (params.mode !== 'url') throw new Error('a form was not expected');
      offered.push(params.message);
      // Accept, then do what the person does in the browser.
      setImmediate(() => void follow(params.url));
      return { action: 'accept' };
    },
  };
}

async function events(base: string): Promise<string[]> {
  return (await fetch(`${base}/events`)).json() as Promise<string[]>;
}

function signInFile(): string {
  const files = readdirSync(authDir());
  expect(files).toHaveLength(1);
  return join(authDir(), files[0]!);
}

/** Rewrites the kept access token's expiry, as if the time had come. */
function expireSoon(): void {
  const file = signInFile();
  const kept = JSON.parse(readFileSync(file, 'utf8'));
  kept.tokens.expires_at = Date.now() + 1_000;
  writeFileSync(file, JSON.stringify(kept));
}

async function whoami(server: InProcessServer): Promise<string> {
  return textOf(await server.run({ code: 'return (await tools["whoami"]({})).content[0].text' }));
}

describe('codemode-mcp login and logout', () => {
  test('login signs in through the redirect to its loopback port and keeps the tokens in a 0600 file of a 0700 directory; the server uses them; logout removes them', async () => {
    const base = await startFixture();
    const config = configFor(base);
    const signedIn = await login(config);
    expect(signedIn.code).toBe(0);
    expect(signedIn.pages).toEqual([expect.stringMatching(/^200 .*codemode-mcp is signed in to &#34;oauthy&#34;/)]);
    expect(signedIn.stderr).toMatch(/codemode-mcp: signed in to "oauthy" \(http:\/\/127\.0\.0\.1:\d+\/mcp\): 1 tools\. Kept in /);
    expect(statSync(authDir()).mode & 0o777).toBe(0o700);
    const file = signInFile();
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const kept = JSON.parse(readFileSync(file, 'utf8'));
    expect(kept).toMatchObject({
      serverUrl: `${base}/mcp`,
      client: { client_id: expect.any(String) },
      tokens: { access_token: expect.stringMatching(/^at-1-/) },
    });
    // Never logged: no token in what login printed.
    expect(signedIn.stderr).not.toContain(kept.tokens.access_token);
    expect(signedIn.stderr).not.toContain(kept.tokens.refresh_token);

    running = await startInProcess(['--config', config, '--pool', '0']);
    expect(await whoami(running)).toContain('token 1');
    expect(running.stderr()).not.toContain(kept.tokens.access_token);

    const out = await login(config, 'logout');
    expect(out.code).toBe(0);
    expect(out.stderr).toContain(`codemode-mcp: signed out of "oauthy" (${base}/mcp): removed ${file}`);
    expect(readdirSync(authDir())).toEqual([]);
  });

  test('login of a server that is not in the config, or is started over stdio, says which servers it can sign in to', async () => {
    const config = writeConfig({
      local: { command: 'node', args: ['x.js'] },
      api: { type: 'http', url: 'http://127.0.0.1:1/mcp' },
    });
    for (const [server, said] of [
      ['nope', `has no enabled server named "nope" (its http and sse servers: api)`],
      [
        'local',
        `"local" is started over stdio, and signs in (if at all) with what its env gives it; login is for http and sse servers (its http and sse servers: api)`,
      ],
    ] as const) {
      const { exitCode, stderr } = await runInProcess(['login', server, '--config', config]);
      expect(exitCode).toBe(1);
      expect(stderr).toContain(said);
    }
  });
  test('during login, requests to the loopback port that lack its exact state get a page saying why, and the sign-in goes on', async () => {
    const base = await startFixture();
    const config = configFor(base);
    const forged: string[] = [];
    const signedIn = await login(config, 'login', async (link) => {
      const asked = new URL(link).searchParams;
      const back = new URL(asked.get('redirect_uri')!);
      const state = asked.get('state')!;
      for (const [query, method] of [
        ['error=access_denied', 'GET'],
        ['error=access_denied&state=guess', 'GET'],
        [`error=access_denied&state=${state}&state=guess`, 'GET'],
        ['code=forged', 'GET'],
        [`state=${state}`, 'GET'],
        [`error=access_denied&state=${state}`, 'POST'],
      ] as const) {
        const page = await fetch(`${back.href}?${query}`, { method });
        forged.push(`${method} ${query.replace(state, 'STATE')}: ${page.status} ${/<p>([^<]*)/.exec(await page.text())?.[1]}`);
      }
    });
    expect(forged).toEqual([
      expect.stringMatching(/^GET error=access_denied: 400 This request carries no state/),
      expect.stringMatching(/^GET error=access_denied&state=guess: 400 This request's state is not that of a sign-in/),
      expect.stringMatching(/^GET error=access_denied&state=STATE&state=guess: 400 This request carries state more than once/),
      expect.stringMatching(/^GET code=forged: 400 This request carries no state/),
      expect.stringMatching(/^GET state=STATE: 400 This request carries neither a code nor an error/),
      expect.stringMatching(/^POST error=access_denied&state=STATE: 405 A sign-in comes back here as the browser's GET/),
    ]);
    expect(signedIn.pages).toEqual([expect.stringMatching(/^200 .*codemode-mcp is signed in to &#34;oauthy&#34;/)]);
    expect(signedIn.code).toBe(0);
  });
});

describe('tokens at run time', () => {
  test('a token about to expire is refreshed before it is sent, and the new one is kept', async () => {
    const base = await startFixture();
    const config = configFor(base);
    expect((await login(config)).code).toBe(0);
    expireSoon();
    running = await startInProcess(['--config', config, '--pool', '0']);
    expect(await whoami(running)).toContain('token 2');
    expect(await events(base)).toContain('refresh_token -> token 2');
    // The server never saw the old token after the refresh.
    const seen = await events(base);
    expect(seen.slice(seen.indexOf('refresh_token -> token 2')).filter((event) => event.endsWith('with token 1'))).toEqual([]);
    expect(JSON.parse(readFileSync(signInFile(), 'utf8')).tokens.access_token).toMatch(/^at-2-/);
  });

  test('a revoked refresh token marks the upstream down with the login command', async () => {
    const base = await startFixture();
    const config = configFor(base);
    expect((await login(config)).code).toBe(0);
    expireSoon();
    await fetch(`${base}/revoke`);
    running = await startInProcess(['--config', config, '--pool', '0']);
    const hint = `run: codemode-mcp login oauthy --config ${config}`;
    const line = await stderrLine(running, /upstream "oauthy" failed to start/);
    expect(line).toContain(`failed to start: sign-in needed: its access token expired and could not be refreshed`);
    expect(line).toContain(hint);
    expect(await events(base)).toContain('refresh_token refused');
    const answer = await running.run({ code: 'return await tools["whoami"]({})' });
    expect(textOf(answer)).toContain('UPSTREAM_DOWN');
    expect(textOf(answer)).toContain(hint);
  });

  test('an upstream that needs a sign-in is down with the login command when the client takes no URL elicitation', async () => {
    const base = await startFixture();
    const config = configFor(base);
    running = await startInProcess(['--config', config, '--pool', '0']);
    const line = await stderrLine(running, /upstream "oauthy" failed to start/);
    expect(line).toBe(
      `codemode-mcp: upstream "oauthy" failed to start: sign-in needed: it needs you to sign in (it answered 401 (invalid_token: no live token)); run: codemode-mcp login oauthy --config ${config}; no further attempt until it is signed in again`,
    );
  });

  test('an upstream whose server says more scope will never do waits for a new sign-in, without retrying, and says so; a login brings one attempt', async () => {
    const base = await startFixture();
    const config = configFor(base);
    expect((await login(config)).code).toBe(0);
    await fetch(`${base}/insufficient-scope`);
    running = await startInProcess(['--config', config, '--pool', '0']);
    const line = await stderrLine(running, /upstream "oauthy" failed to start/);
    expect(line).toMatch(
      /failed to start: sign-in needed: .*insufficient_scope.*; no further attempt until it is signed in again$/,
    );
    const refused = async (): Promise<number> =>
      (await events(base)).filter((event) => event.endsWith('refused 403 insufficient_scope')).length;
    const first = await refused();
    expect(first).toBeGreaterThan(0);

    const { tools } = await running.client.listTools();
    const description = tools.find((tool) => tool.name === 'code_execution')!.description!;
    expect(description).toMatch(/oauthy is down: sign-in needed: .*no further attempt until it is signed in again/);
    for (let call = 0; call < 2; call++) {
      const answer = textOf(await running.run({ code: 'return await tools["whoami"]({})' }));
      expect(answer).toContain('UPSTREAM_DOWN');
      expect(answer).toContain('sign-in needed');
      expect(answer).not.toContain('next attempt');
    }
    expect(await refused()).toBe(first);

    // What a login in another terminal does: writes the sign-in file. One attempt follows, and it waits again.
    const file = signInFile();
    writeFileSync(file, readFileSync(file));
    await until(
      'the upstream to be tried once more after its sign-in file was written',
      async () => (await refused()) >= 2 * first,
    );
    expect(await refused()).toBe(2 * first);
    const again = textOf(await running.run({ code: 'return await tools["whoami"]({})' }));
    expect(again).toContain('no further attempt until it is signed in again');
  });

  test('a 403 insufficient_scope for the scope already signed in for makes no new sign-in: none is offered, and it waits for one', async () => {
    const base = await startFixture();
    // The fixture's token answers name no scope: granted as asked (RFC 6749 §5.1).
    const config = configFor(base, { oauth: { scope: 'mcp:admin' } });
    expect((await login(config)).code).toBe(0);
    expect(JSON.parse(readFileSync(signInFile(), 'utf8')).tokens.scope).toBe('mcp:admin');
    await fetch(`${base}/insufficient-scope`);
    const offered: string[] = [];
    running = await startInProcess(['--config', config, '--pool', '0'], {
      capabilities: { elicitation: { url: {} } },
      onElicit: (request) => {
        offered.push(String(request.params.message));
        return { action: 'decline' };
      },
    });
    const line = await stderrLine(running, /upstream "oauthy" failed to start/);
    expect(line).toContain(
      'failed to start: sign-in needed: it answered 403 (insufficient_scope: Scope upgrade will never succeed)',
    );
    expect(line).toMatch(/; no further attempt until it is signed in again$/);
    expect(offered).toEqual([]);
  });

  // Conformance auth/scope-retry-limit (issue 45): a server whose 403 insufficient_scope names the
  // scope just signed in for was signed in to again, at every backoff step.
  test.each([
    ['the entry names the scope', { oauth: { scope: 'mcp:admin' } }, ['authorize mcp:admin']],
    ['a step-up asks for it first', {}, ['authorize (no scope)', 'authorize mcp:admin']],
  ])(
    'a login whose server refuses the scope its sign-in asked for stops at once, saying why (%s)',
    async (_how, extra, authorizations) => {
      const base = await startFixture();
      await fetch(`${base}/no-refresh`);
      await fetch(`${base}/insufficient-scope`);
      const result = await login(configFor(base, extra));
      expect(result.code).toBe(1);
      expect(result.pages).toHaveLength(authorizations.length);
      expect(result.stderr).toContain(
        `it refused the token (it answered 403 (insufficient_scope: Scope upgrade will never succeed)) for want of scope "mcp:admin", ` +
          `which its sign-in already asked for ("mcp:admin"): signing in again for it can't help, so codemode-mcp does not; ` +
          `the account may lack that access: ask the server's administrator, or sign in as another account (codemode-mcp login oauthy --config `,
      );
      expect((await events(base)).filter((event) => event.startsWith('authorize'))).toEqual(authorizations);
    },
  );

  test('a server that refuses the scope a sign-in offered to the client asked for is not offered another: it waits, saying why', async () => {
    const base = await startFixture();
    await fetch(`${base}/no-refresh`);
    await fetch(`${base}/insufficient-scope`);
    const config = configFor(base, { oauth: { scope: 'mcp:admin' } });
    const offered: string[] = [];
    running = await startInProcess(['--config', config, '--pool', '0'], signingInPerson(offered));
    const line = await stderrLine(running, /upstream "oauthy" failed to start: sign-in needed: it refused the token/);
    expect(line).toContain(`for want of scope "mcp:admin", which its sign-in already asked for ("mcp:admin")`);
    expect(line).toMatch(/; no further attempt until it is signed in again$/);
    for (let call = 0; call < 2; call++) {
      expect(textOf(await running.run({ code: 'return await tools["whoami"]({})' }))).toContain('UPSTREAM_DOWN');
    }
    expect(offered).toEqual([`Sign in to "oauthy" (${new URL(base).host}) so that codemode-mcp can reach its tools.`]);
    expect((await events(base)).filter((event) => event.startsWith('authorize'))).toEqual(['authorize mcp:admin']);
  });

  test('the sign-in link is offered through URL elicitation, and the upstream comes up once the person has signed in', async () => {
    const base = await startFixture();
    const config = configFor(base);
    const offered: string[] = [];
    running = await startInProcess(['--config', config, '--pool', '0'], signingInPerson(offered));
    await stderrLine(running, /upstream "oauthy" is up again: 1 tools/);
    expect(offered).toEqual([`Sign in to "oauthy" (${new URL(base).host}) so that codemode-mcp can reach its tools.`]);
    expect(running.stderr()).toContain('codemode-mcp: upstream "oauthy": signed in; reconnecting');
    const answer = await whoami(running);
    expect({ answer, events: await events(base) }).toMatchObject({ answer: expect.stringContaining('token 1') });
    expect(statSync(signInFile()).mode & 0o777).toBe(0o600);
  });
});

describe('credentials of the entry itself', () => {
  test("a 401 to the entry's own Authorization header says the status, what the server said, and what to do", async () => {
    const base = await startFixture();
    const config = configFor(base, { headers: { Authorization: 'Bearer stale' } });
    running = await startInProcess(['--config', config, '--pool', '0']);
    const line = await stderrLine(running, /upstream "oauthy" failed to start/);
    expect(line).toContain(
      `failed to start: it answered 401 (invalid_token: no live token) to the credential in its entry's "headers"; check that header's token, or remove it and let codemode-mcp sign in (codemode-mcp login oauthy --config ${config})`,
    );
  });

  test('client_credentials gets its token at start; a wrong secret says what the authorization server answered and which fields to check', async () => {
    const base = await startFixture();
    const good = configFor(base, {
      oauth: { grant: 'client_credentials', clientId: 'machine', clientSecret: '${MACHINE_SECRET}' },
    });
    running = await startInProcess(['--config', good, '--pool', '0'], { env: { MACHINE_SECRET: 'machine-secret' } });
    expect(await whoami(running)).toContain('token 1');
    expect(await events(base)).toContain('client_credentials -> token 1');
    expect(await running.close()).toEqual([]);

    running = await startInProcess(['--config', good, '--pool', '0'], { env: { MACHINE_SECRET: 'not-the-secret-4711' } });
    const line = await stderrLine(running, /upstream "oauthy" failed to start/);
    expect(line).toContain(
      'failed to start: the authorization server refused its client credentials (invalid_client: unknown client or wrong secret); check oauth.clientId and oauth.clientSecret in its entry',
    );
    expect(line).not.toContain('not-the-secret-4711');
  });

  test('a secret written into the config itself works, with a warning at start that names the variable to use and never the secret', async () => {
    const base = await startFixture();
    const config = configFor(base, {
      oauth: { grant: 'client_credentials', clientId: 'machine', clientSecret: 'machine-secret' },
    });
    running = await startInProcess(['--config', config, '--pool', '0']);
    expect(await whoami(running)).toContain('token 1');
    const warning = await stderrLine(running, /warning: upstream "oauthy"/);
    expect(warning).toBe(
      'codemode-mcp: warning: upstream "oauthy" has its oauth.clientSecret written in the config file; keep secrets out of files others may read: set OAUTHY_CLIENT_SECRET in the environment and write "clientSecret": "${OAUTHY_CLIENT_SECRET}"',
    );
    expect(running.stderr()).not.toContain('machine-secret');
  });
});
