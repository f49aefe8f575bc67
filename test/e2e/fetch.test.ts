/**
 * fetch() end to end, as a client drives it: the server over stdio (in this process, with the SDK's
 * client) with one origin listed (a server this test starts on 127.0.0.1) and its token from the
 * environment. A script reads the API and combines it with an MCP tool's answer; the token reaches
 * the API and nowhere the model or the log can see; the description names the origin.
 * `codemode-mcp tools` shows the policy and `codemode-mcp run` fetches (each in this process, as the
 * bin runs them); over HTTP (in this process too), with the origin given by `--fetch`, a 2025
 * session's scripts and a 2026-07-28 caller's fetch alike.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { connectHttp, SILENT_UPSTREAM } from '../support/http-server.js';
import { startInProcessHttp } from '../support/in-process-http.js';
import { fixturePath, nodeEntry, textOf, valueOf, writeConfig } from '../support/mcp-client.js';
import { runInProcess } from '../support/in-process-command.js';
import { closeTargets, startTarget } from '../support/fetch-target.js';
import { startInProcess } from '../support/in-process-server.js';
import { makeTempDir } from '../support/temp-dirs.js';

afterEach(closeTargets);

const TOKEN = 'ghp_e2eTokenFromTheEnvironment0123';

describe('fetch over stdio', () => {
  test('a script reads a listed API with the token the server adds, combines it with a tool, and never sees the token', async () => {
    const api = await startTarget((request, response) => {
      if (request.headers.authorization !== `Bearer ${TOKEN}`) {
        response.statusCode = 401;
        return void response.end(JSON.stringify({ message: 'Bad credentials' }));
      }
      response.setHeader('content-type', 'application/json');
      response.end(
        JSON.stringify([
          { name: 'alpha', stars: 3 },
          { name: 'beta', stars: 5 },
        ]),
      );
    });
    const config = writeConfig(
      { recorder: nodeEntry(fixturePath('upstreams/recorder.mjs')) },
      {
        fetch: {
          [api.origin]: { methods: ['GET', 'POST'], headers: { Authorization: 'Bearer ${FETCH_TOKEN}' }, allowPrivate: true },
        },
        // Approvals only through the client, which cannot ask: the POST gets approvalFallback (the page is tested in approval-page*.test.ts).
        approvalVia: 'client',
      },
    );
    const server = await startInProcess(['--config', config, '--pool', '0'], { env: { FETCH_TOKEN: TOKEN } });
    try {
      const { tools } = await server.client.listTools();
      const description = tools.find((tool) => tool.name === 'code_execution')!.description!;
      expect(description).toContain(`Only to: ${api.origin} (GET, POST [asks])`);

      const result = await server.run({
        code: `const repos = await (await fetch("${api.origin}/user/repos")).json();
          const top = repos.sort((a, b) => b.stars - a.stars)[0].name;
          const echoed = await tools.echo({ text: "top: " + top });
          const refused = await fetch("https://example.com/").catch((e) => e.code);
          const post = await fetch("${api.origin}/user/repos", { method: "POST", body: "{}" }).catch((e) => e.code);
          const env = (await tools.env({})).content[0].text;
          console.log(JSON.stringify(repos));
          return { echoed: echoed.content[0].text, refused, post, env };`,
      });
      expect(result.isError, textOf(result)).toBe(false);
      const value = valueOf(result) as { echoed: string; refused: string; post: string; env: string };
      expect(value).toMatchObject({ echoed: 'top: beta', refused: 'FETCH_ORIGIN', post: 'APPROVAL_UNAVAILABLE' });
      expect(textOf(result)).toMatch(/^Script \S+ finished\ncalls: 3 answered, 2 refused \(never sent\)/);
      // The POST waited for a person no client could ask here, and was never sent.
      expect(api.seen.map((request) => request.method)).toEqual(['GET']);
      // Nowhere the model or the log can see: the answer, its structured content, the upstream's environment, the server's stderr.
      expect(JSON.stringify(result)).not.toContain(TOKEN);
      expect(server.stderr()).not.toContain(TOKEN);
      expect(server.stderr()).toContain(`codemode-mcp: fetch: scripts may fetch ${api.origin} (GET, POST)`);
      expect(server.stderr()).toMatch(
        new RegExp(`codemode-mcp: fetch: script \\S+ GET ${api.origin}/user/repos → 200, 54 bytes`),
      );
    } finally {
      expect(await server.close()).toEqual([]);
    }
  });

  test('codemode-mcp tools shows the fetch policy after the tools, naming the headers the server adds but not their values', async () => {
    const config = writeConfig(
      { recorder: nodeEntry(fixturePath('upstreams/recorder.mjs')) },
      {
        fetch: {
          'https://api.github.com': {
            headers: { Authorization: 'Bearer ${CODEMODE_E2E_UNSET_TOKEN:-tok_default_never_printed}' },
            methods: ['GET', 'DELETE'],
            paths: ['/repos/**'],
          },
        },
      },
    );
    const { stdout, exitCode } = await runInProcess(['tools', '--config', config]);
    expect(exitCode).toBe(0);
    expect(stdout).toContain(
      [
        'fetch(url, init) reaches 1 origin (settings.fetch), made by the server; any other origin is refused (FETCH_ORIGIN).',
        '',
        '== https://api.github.com',
        '// methods: GET, DELETE; DELETE asks a person first',
        '// the server adds: authorization (values from the config, never shown to scripts)',
        '// paths: /repos/**',
        '// private addresses (loopback, private, link-local, metadata): refused (FETCH_PRIVATE)',
      ].join('\n'),
    );
    expect(stdout).not.toContain('tok_default_never_printed');
  });

  test('codemode-mcp run fetches as the server does, with the credential the config names', async () => {
    const api = await startTarget((request, response) => {
      response.statusCode = request.headers['x-api-key'] === 'k_run_default_0123' ? 200 : 401;
      response.end(JSON.stringify({ path: request.path }));
    });
    const config = writeConfig(
      { recorder: nodeEntry(fixturePath('upstreams/recorder.mjs')) },
      {
        fetch: {
          [api.origin]: { headers: { 'X-Api-Key': '${CODEMODE_E2E_UNSET_KEY:-k_run_default_0123}' }, allowPrivate: true },
        },
      },
    );
    const { stdout, exitCode, left } = await runInProcess(['run', '-', '--config', config], {
      input: `const res = await fetch("${api.origin}/by-hand"); return [res.status, await res.json()];`,
    });
    expect(exitCode).toBe(0);
    expect(stdout).toContain('value: [200,{"path":"/by-hand"}]');
    expect(stdout).not.toContain('k_run_default_0123');
    expect(left).toEqual([]);
  });

  test('over HTTP, with the origin from --fetch, a 2025 session and a 2026-07-28 caller each fetch, audited as their owner', async () => {
    const api = await startTarget((request, response) => {
      response.statusCode = request.headers['x-api-key'] === 'k_http_0123456789' ? 200 : 401;
      response.end(JSON.stringify({ path: request.path }));
    });
    const audit = join(makeTempDir('fetch-audit'), 'audit.jsonl');
    const policy = { [api.origin]: { headers: { 'X-Api-Key': '${FETCH_E2E_KEY}' }, allowPrivate: true } };
    const server = await startInProcessHttp(
      // The upstream never answers: no call waits for its start (the scripts here call no tool).
      [
        '--fetch',
        JSON.stringify(policy),
        '--audit-log',
        audit,
        '--pool',
        '0',
        '--startup-wait-ms',
        '0',
        '--',
        ...SILENT_UPSTREAM,
      ],
      { env: { FETCH_E2E_KEY: 'k_http_0123456789' } },
    );
    try {
      const code = (path: string) => `const res = await fetch("${api.origin}${path}"); return [res.status, await res.json()];`;
      for (const [path, options] of [
        ['/session', {}],
        ['/sessionless', { versionNegotiation: { mode: { pin: '2026-07-28' } } } as const],
      ] as const) {
        const client = await connectHttp(server.url, options);
        try {
          const result = await client.run({ code: code(path) });
          expect(valueOf(result), textOf(result)).toEqual([200, { path }]);
          expect(JSON.stringify(result)).not.toContain('k_http_0123456789');
        } finally {
          await client.close();
        }
      }
      const lines = readFileSync(audit, 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { principal: string; session: string; fetch?: { path: string }; status?: number });
      // No tokens file: both are the shared principal, the session named by its id, the caller by its principal.
      const fetches = lines.filter((line) => line.fetch !== undefined);
      expect(fetches.map((line) => [line.fetch!.path, line.status, line.principal])).toEqual([
        ['/session', 200, 'shared'],
        ['/sessionless', 200, 'shared'],
      ]);
      expect(fetches.map((line) => line.session)).toEqual([expect.stringMatching(/^session \S+$/), 'principal shared']);
      expect(readFileSync(audit, 'utf8') + server.stderr()).not.toContain('k_http_0123456789');
    } finally {
      expect((await server.stop()).left).toEqual([]);
    }
  });
});
