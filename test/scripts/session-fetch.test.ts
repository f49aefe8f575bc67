/**
 * fetch() through a session's scripts, as ScriptOwner wires it: the server's fetcher bound to the
 * principal, each script's requests asked about through the session's approval gate, and each
 * counted in the script's answer. A refusal reaches the script, and nothing else (no stray rejection).
 */
import type { CallToolResult } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import { ApprovalGate } from '../../src/approvals/approval-gate.js';
import { DEFAULT_SETTINGS } from '../../src/config/settings.js';
import { Fetcher } from '../../src/fetch/fetcher.js';
import { fetchCaller } from '../../src/mcp/fetch-caller.js';
import { ChildSupply } from '../../src/scripts/child-supply.js';
import { SessionScripts } from '../../src/scripts/session-scripts.js';
import { closeTargets, originRule, startTarget } from '../support/fetch-target.js';
import { waitForNoChildren } from '../support/processes.js';

const opened: Array<{ session: SessionScripts; supply: ChildSupply }> = [];

afterEach(async () => {
  for (const { session, supply } of opened.splice(0)) {
    await session.close();
    await supply.close();
  }
  await closeTargets();
  expect(await waitForNoChildren(process.pid)).toEqual([]);
});

const text = (answer: CallToolResult) => (answer.content[0] as { text: string }).text;

describe("a session's scripts fetching", () => {
  it('reach a listed origin, are refused elsewhere, and a POST no person can approve is refused unsent', async () => {
    // Regression: with telemetry off, a refused fetch's copy for the script's count was a rejection no one handled, which ended the server.
    // The count now takes the answer itself.
    const api = await startTarget((_request, response) => void response.end('{"ok":true}'));
    const settings = { ...DEFAULT_SETTINGS, pool: 0 };
    const supply = new ChildSupply(settings);
    const fetcher = new Fetcher({
      rules: [originRule(api.origin, { methods: ['GET', 'POST'] })],
      maxBytes: 1024,
      timeoutMs: 30_000,
      log: () => {},
    });
    const session = new SessionScripts({
      supply: supply.forSession(),
      catalog: () => [],
      unlisted: () => [],
      callTool: () => Promise.reject(new Error('no tools here')),
      callFetch: fetchCaller(fetcher, 'local'),
      settings,
      identity: { principal: 'local', session: 'the client' },
      log: () => {},
      approvals: new ApprovalGate({
        person: { accepts: () => false, ask: () => Promise.reject(new Error('no person')) },
        timeoutMs: 60_000,
        fallback: 'refuse',
        owner: 'this session',
        log: () => {},
      }),
    });
    opened.push({ session, supply });
    const answer = await session.handle(
      {
        code: `const ok = await (await fetch("${api.origin}/a")).json();
          const elsewhere = await fetch("https://example.com/").catch((e) => e.code);
          const post = await fetch("${api.origin}/a", { method: "POST", body: "x" }).catch((e) => e.code);
          return { ok, elsewhere, post };`,
      },
      { signal: new AbortController().signal },
    );
    expect(text(answer)).toMatch(
      /^Script \S+ finished\ncalls: 1 answered, 2 refused \(never sent\)\napprovals: 1 call refused without asking/,
    );
    expect(answer.structuredContent).toMatchObject({
      value: { ok: { ok: true }, elsewhere: 'FETCH_ORIGIN', post: 'APPROVAL_UNAVAILABLE' },
    });
    expect(api.seen.map((request) => request.method)).toEqual(['GET']);
  });
});
