/**
 * fetch() through an owner's scripts, as the host APIs wire it (src/mcp/host-apis.ts,
 * src/scripts/script-apis.ts): the server's fetcher bound to the principal, each script's requests
 * asked about through the owner's approval gate, and each counted in the script's answer. A
 * refusal reaches the script, and nothing else (no stray rejection).
 */
import type { CallToolResult } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import { ApprovalGate } from '../../src/approvals/approval-gate.js';
import { DEFAULT_SETTINGS } from '../../src/config/settings.js';
import { Fetcher } from '../../src/fetch/fetcher.js';
import { fetchApi } from '../../src/fetch/fetch-api.js';
import { answerArguments } from '../../src/mcp/code-execution/call.js';
import { ChildSupply } from '../../src/scripts/child-supply.js';
import { OwnerScripts } from '../../src/scripts/owner-scripts.js';
import { closeTargets, originRule, startTarget } from '../support/fetch-target.js';
import { waitForNoChildren } from '../support/processes.js';

const opened: Array<{ session: OwnerScripts; supply: ChildSupply }> = [];

afterEach(async () => {
  for (const { session, supply } of opened.splice(0)) {
    await session.close();
    await supply.close();
  }
  await closeTargets();
  expect(await waitForNoChildren(process.pid)).toEqual([]);
});

const text = (answer: CallToolResult) => (answer.content[0] as { text: string }).text;

describe("an owner's scripts fetching", () => {
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
    const session = new OwnerScripts({
      supply: supply.forSession(),
      catalog: () => [],
      unlisted: () => [],
      apis: { tools: () => Promise.reject(new Error('no tools here')), fetch: fetchApi(fetcher, 'local') },
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
    const answer = await answerArguments(
      session,
      {
        code: `const ok = await (await fetch("${api.origin}/a")).json();
          const elsewhere = await fetch("https://example.com/").catch((e) => e.code);
          const post = await fetch("${api.origin}/a", { method: "POST", body: "x" }).catch((e) => e.code);
          return { ok, elsewhere, post };`,
      },
      settings.maxYieldMs,
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
