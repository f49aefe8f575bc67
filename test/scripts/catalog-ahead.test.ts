import { afterEach, describe, expect, it, vi } from 'vitest';
import type { CatalogTool } from '../../src/catalog/types.js';
import { ScriptChild } from '../../src/script-host/script-child.js';
import { scriptTools } from '../../src/script-host/script-tools.js';
import { ChildSupply } from '../../src/scripts/child-supply.js';
import { OwnerScripts } from '../../src/scripts/owner-scripts.js';
import { answerArguments } from '../../src/mcp/code-execution/call.js';
import { toolEntries } from '../../src/scripts/tool-entries.js';
import { DEFAULT_SETTINGS, type Settings } from '../../src/config/settings.js';
import type { ParentMessage } from '../../protocol/contract.js';
import { waitForNoChildren } from '../support/processes.js';

const idle = { signal: new AbortController().signal };
const opened: Array<{ session: OwnerScripts; supply: ChildSupply }> = [];

afterEach(async () => {
  vi.restoreAllMocks();
  for (const { session, supply } of opened.splice(0)) {
    await session.close();
    await supply.close();
  }
  expect(await waitForNoChildren(process.pid)).toEqual([]);
});

function catalogOf(...names: string[]): CatalogTool[] {
  return names.map((name) => ({
    name,
    server: 'test',
    upstreamName: name,
    description: `The ${name} tool.`,
    inputSchema: { type: 'object', properties: { text: { type: 'string', description: 'x'.repeat(200) } } },
    allowed: true,
  }));
}

/** What the server's children are sent, read from a spy that lets each send through. */
function recordSent(): () => ParentMessage[] {
  const spy = vi.spyOn(ScriptChild.prototype, 'send');
  return () => spy.mock.calls.map(([message]) => message);
}

/** A pool of one and a session whose catalog is whatever `current` holds when a script runs. */
function open(settings: Partial<Settings>, current: { catalog: CatalogTool[] }): { session: OwnerScripts; supply: ChildSupply } {
  const all = { ...DEFAULT_SETTINGS, pool: 1, ...settings };
  const supply = new ChildSupply(all);
  const session = new OwnerScripts({
    supply: supply.forSession(),
    catalog: () => current.catalog,
    unlisted: () => [],
    apis: { tools: async (name) => ({ content: [{ type: 'text', text: `called ${name}` }] }) },
    settings: all,
    identity: { principal: 'local', session: 'the client' },
    log: () => {},
  });
  opened.push({ session, supply });
  return { session, supply };
}

const jsonOf = (catalog: CatalogTool[]): string => scriptTools(toolEntries(catalog)).json;

async function answerOf(session: OwnerScripts, code: string): Promise<{ status?: string; value?: unknown; error?: string }> {
  return (await answerArguments(session, { code }, DEFAULT_SETTINGS.maxYieldMs, idle)).structuredContent as {
    status?: string;
    value?: unknown;
    error?: string;
  };
}

const starts = (sent: ParentMessage[]) => sent.filter((message) => message.t === 'start');
/** The catalogs sent before the first start (a refill, after it, is sent one too). */
const catalogsAhead = (sent: ParentMessage[]) =>
  sent
    .slice(
      0,
      sent.findIndex((message) => message.t === 'start'),
    )
    .filter((message) => message.t === 'catalog');

describe('the catalog sent ahead to a pooled child', () => {
  it("makes a run's start carry no tools, and the script has the catalog it was sent", async () => {
    const sent = recordSent();
    const current = { catalog: catalogOf('alpha', 'beta') };
    const { session, supply } = open({}, current);
    supply.offerCatalog(jsonOf(current.catalog));
    const answer = await answerOf(
      session,
      'return { names: ALL_TOOLS.map((t) => t.name), called: (await tools.beta({})).content[0].text, declared: describe("alpha").includes("alpha") }',
    );
    expect(answer.value).toEqual({ names: ['alpha', 'beta'], called: 'called beta', declared: true });
    expect(starts(sent())).toHaveLength(1);
    expect(starts(sent())[0]).not.toHaveProperty('tools');
    expect(catalogsAhead(sent())).toHaveLength(1);
  });

  it('is sent again to the pooled child when it changes, and the start still carries none', async () => {
    const sent = recordSent();
    const current = { catalog: catalogOf('alpha') };
    const { session, supply } = open({}, current);
    supply.offerCatalog(jsonOf(current.catalog));
    current.catalog = catalogOf('alpha', 'gamma');
    supply.offerCatalog(jsonOf(current.catalog));
    // The same text again is not sent again.
    supply.offerCatalog(jsonOf(current.catalog));
    const answer = await answerOf(session, 'return ALL_TOOLS.map((t) => t.name)');
    expect(answer.value).toEqual(['alpha', 'gamma']);
    expect(catalogsAhead(sent())).toHaveLength(2);
    expect(starts(sent())[0]).not.toHaveProperty('tools');
  });

  it('travels with the start when the script was given another catalog than the one sent ahead', async () => {
    const sent = recordSent();
    const current = { catalog: catalogOf('alpha') };
    const { session, supply } = open({}, current);
    supply.offerCatalog(jsonOf(current.catalog));
    current.catalog = catalogOf('delta');
    const answer = await answerOf(session, 'return [ALL_TOOLS.map((t) => t.name), typeof tools.delta]');
    expect(answer.value).toEqual([['delta'], 'function']);
    expect(starts(sent())[0]).toHaveProperty('tools', jsonOf(current.catalog));
  });

  it('travels with the start of a child spawned for the run (the pool off)', async () => {
    const sent = recordSent();
    const current = { catalog: catalogOf('alpha') };
    const { session, supply } = open({ pool: 0 }, current);
    supply.offerCatalog(jsonOf(current.catalog));
    const answer = await answerOf(session, 'return ALL_TOOLS.map((t) => t.name)');
    expect(answer.value).toEqual(['alpha']);
    expect(catalogsAhead(sent())).toHaveLength(0);
    expect(starts(sent())[0]).toHaveProperty('tools', jsonOf(current.catalog));
  });

  it("fails the script at its start, saying so, when the catalog sent ahead didn't fit the script's memory", async () => {
    const many = catalogOf(...Array.from({ length: 4_000 }, (_, i) => `tool${i}`));
    const current = { catalog: many };
    const { session, supply } = open({ memoryMaxBytes: 4 * 1024 * 1024 }, current);
    supply.offerCatalog(jsonOf(many));
    const answer = await answerOf(session, 'return ALL_TOOLS.length');
    expect(answer.status).toBe('failed');
    expect(answer.error).toMatch(/out of memory/i);
  });
});
