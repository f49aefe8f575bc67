import type { CallToolResult } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import type { CatalogTool } from '../../src/catalog/types.js';
import { ToolRefusedError } from '../../src/support/errors.js';
import { ChildSupply } from '../../src/scripts/child-supply.js';
import { OwnerScripts, type WatchContext } from '../../src/scripts/owner-scripts.js';
import { answerArguments } from '../../src/mcp/code-execution/call.js';
import { PROCESS_TAG } from '../../src/scripts/script-ids.js';
import { DEFAULT_SETTINGS, type Settings } from '../../src/config/settings.js';
import { waitForNoChildren } from '../support/processes.js';
import { until } from '../support/waiting.js';

const catalog: CatalogTool[] = [
  { name: 'echo', server: 's', upstreamName: 'echo', description: 'Echoes.', inputSchema: { type: 'object' }, allowed: true },
  {
    name: 'secret',
    server: 's',
    upstreamName: 'secret',
    description: 'Denied.',
    inputSchema: { type: 'object' },
    allowed: false,
  },
];

/** An owner's scripts behind the code_execution tool, as a 2025 client calls it: raw arguments in, the tool's answer out. */
interface Session {
  handle(args: unknown, watch: Omit<WatchContext, 'interrupt' | 'handOver'>): Promise<CallToolResult>;
  close(): Promise<unknown>;
}

const opened: Array<{ session: Session; supply: ChildSupply }> = [];

/** A call to echo with `{gate: true}` reaches the tool, then waits until the test opens the gate. */
let gate = { reached: () => {}, opened: Promise.resolve() };

function armGate(): { reached: Promise<void>; open: () => void } {
  let reached: () => void = () => {};
  let open: () => void = () => {};
  const reachedPromise = new Promise<void>((resolve) => (reached = resolve));
  gate = { reached, opened: new Promise<void>((resolve) => (open = resolve)) };
  return { reached: reachedPromise, open };
}

function open(settings: Partial<Settings> = {}, instance?: string): Session {
  const all = { ...DEFAULT_SETTINGS, pool: 0, ...settings };
  const supply = new ChildSupply(all);
  const scripts = new OwnerScripts({
    supply: supply.forSession(),
    catalog: () => catalog,
    unlisted: () => ['late__'],
    apis: {
      tools: async (name, args, _signal, onProgress) => {
        if (name === 'secret') throw new ToolRefusedError('TOOL_DENIED', name, 'denied by the config');
        if (name.startsWith('late__'))
          throw new ToolRefusedError('UPSTREAM_CONNECTING', name, 'upstream "late" is still starting');
        onProgress({ progress: 1, total: 2, message: 'halfway' });
        if ((args as { gate?: boolean }).gate === true) {
          gate.reached();
          await gate.opened;
        }
        return { content: [{ type: 'text', text: JSON.stringify(args) }] };
      },
    },
    settings: all,
    identity: { principal: 'local', session: 'the client' },
    ...(instance !== undefined ? { instance } : {}),
    log: () => {},
  });
  const session: Session = {
    handle: (args, watch) => answerArguments(scripts, args, all.maxYieldMs, watch),
    close: () => scripts.close(),
  };
  opened.push({ session, supply });
  return session;
}

afterEach(async () => {
  for (const { session, supply } of opened.splice(0)) {
    await session.close();
    await supply.close();
  }
  expect(await waitForNoChildren(process.pid)).toEqual([]);
});

const idle = { signal: new AbortController().signal };
const text = (answer: CallToolResult) => (answer.content[0] as { text: string }).text;
const scriptId = (answer: CallToolResult) => /^Script (\S+) /.exec(text(answer))![1]!;

describe('code_execution in one session', () => {
  it.each([
    [{}, /nothing to do: code_execution accepts \{"code"/],
    [{ action: 'dance' }, /action must be one of "run", "wait", "stop", "list"; got "dance"/],
    [{ action: 'wait' }, /wait needs the script's id/],
    [{ action: 'wait', script: `${PROCESS_TAG}-99` }, /no script "[0-9a-f]+-99" of this session/],
    [{ code: 42 }, /code must be a string of JavaScript.*got number 42/],
    [{ code: 'return 1', yield_ms: -1 }, /yield_ms must be a whole number of milliseconds from 0 to 600000/],
    [{ code: 'return 1', extra: true }, /run takes "action", "code", "yield_ms"; not "extra"/],
    ['return 1', /the input must be an object/],
  ])('refuses %j with a message that says what is accepted', async (input, message) => {
    const answer = await open().handle(input, idle);
    expect(answer.isError).toBe(true);
    expect(text(answer)).toMatch(/^Refused: /);
    expect(text(answer)).toMatch(message);
  });

  it('tells an id from an earlier run of the server from one it never had', async () => {
    const answer = await open().handle({ action: 'wait', script: 'abcdef-1' }, idle);
    expect(text(answer)).toMatch(/started by an earlier run of the server/);
  });

  it("names its instance in its script ids, and tells that instance's earlier run from a typo", async () => {
    const session = open({}, 'a');
    const first = scriptId(await session.handle({ code: 'return 1' }, idle));
    expect(first).toMatch(new RegExp(`^a\\.${PROCESS_TAG}-\\d+$`));
    expect(text(await session.handle({ action: 'wait', script: 'a.abcdef-1' }, idle))).toMatch(
      /started by an earlier run of the server/,
    );
    expect(text(await session.handle({ action: 'wait', script: `a.${PROCESS_TAG}-0` }, idle))).toMatch(
      new RegExp(`^Refused: no script "a\\.[0-9a-f]{6}-0" of this session\\. Its scripts: ${first.replaceAll('.', '\\.')}\\.$`),
    );
  });

  // Regression: every HTTP session's first script was `<tag>-1`, so the server's log could not tell them apart.
  it("gives each script an id no other owner's script of the server has", async () => {
    const [one, two] = [open(), open()];
    const ids = [scriptId(await one.handle({ code: 'return 1' }, idle)), scriptId(await two.handle({ code: 'return 1' }, idle))];
    expect(new Set(ids).size).toBe(2);
  });

  it("answers a wait or stop for another instance's script as that instance gone, not as an unknown script", async () => {
    const session = open({}, 'a');
    for (const action of ['wait', 'stop']) {
      const answer = await session.handle({ action, script: 'b.abcdef-3' }, idle);
      expect(answer.isError).toBe(true);
      expect(text(answer)).toMatch(/^Refused: script "b\.abcdef-3" was started on instance "b", which is gone or unreachable/);
      expect(text(answer)).toContain('Run the script again.');
    }
  });

  it('yields a running script, returns only what is new on wait, and lists what ran', async () => {
    const session = open();
    const { reached, open: openGate } = armGate();
    const first = await session.handle(
      { code: 'console.log("one"); await tools.echo({ gate: true }); console.log("two"); return 2', yield_ms: 0 },
      idle,
    );
    expect(text(first)).toMatch(/^Script \S+ running\n/);
    const id = scriptId(first);
    // The script's output goes out before its call, so by the time the call arrives "one" is in.
    await reached;
    const middle = await session.handle({ action: 'wait', script: id, yield_ms: 0 }, idle);
    expect(text(middle)).toMatch(/^Script \S+ running\n/);
    expect(text(middle)).toMatch(/output:\none\n$/);
    openGate();
    const second = await session.handle({ action: 'wait', script: id }, idle);
    expect(text(second)).toBe(`Script ${id} finished\ncalls: 1 answered\nvalue: 2\noutput:\ntwo\n`);
    expect(second.structuredContent).toMatchObject({ script: id, status: 'finished', value: 2 });

    const busy = await session.handle({ code: 'while (true) {}', yield_ms: 100 }, idle);
    const busyId = scriptId(busy);
    const stopped = await session.handle({ action: 'stop', script: busyId }, idle);
    expect(text(stopped)).toMatch(new RegExp(`^Script ${busyId} stopped\n`));
    expect(stopped.isError).toBe(false);

    const list = text(await session.handle({ action: 'list' }, idle));
    expect(list).toMatch(/^Scripts: 0 running, 2 ended\n/);
    expect(list).toContain(`${id} finished`);
    expect(list).toContain(`${busyId} stopped`);
  });

  it('refuses a run past maxRunningScripts, naming the running scripts', async () => {
    const session = open({ maxRunningScripts: 2 });
    // Scripts that run until the test ends (session.close stops them), however slow the machine.
    const a = scriptId(await session.handle({ code: 'await sleep(600_000)', yield_ms: 0 }, idle));
    const b = scriptId(await session.handle({ code: 'await sleep(600_000)', yield_ms: 0 }, idle));
    const refused = await session.handle({ code: 'return 1' }, idle);
    expect(refused.isError).toBe(true);
    expect(text(refused)).toContain(`2 scripts are already running for this session, its maxRunningScripts: ${a}, ${b}`);
  });

  it('refuses a run past the server-wide maxScriptChildren', async () => {
    const session = open({ maxScriptChildren: 1 });
    await session.handle({ code: 'await sleep(600_000)', yield_ms: 0 }, idle);
    const refused = await session.handle({ code: 'return 1' }, idle);
    expect(text(refused)).toMatch(/already runs 1 script processes, its maxScriptChildren/);
  });

  it('stops a script whose only watch was cancelled before it returned anything, and keeps its ending', async () => {
    const session = open();
    const cancel = new AbortController();
    // A script that waits rather than spins: it stops at once however loaded the machine is, so its
    // output is always there (a spinning one is stopped at its next interrupt check: hostile/stop.test.ts).
    // Its output goes out before its call, so once the call has reached the tool "kept" is in.
    const { reached, open: openGate } = armGate();
    const pending = session.handle(
      { code: 'console.log("kept"); await tools.echo({ gate: true }); await sleep(60_000)' },
      { signal: cancel.signal },
    );
    await reached;
    cancel.abort();
    await pending;
    openGate();
    const list = text(await session.handle({ action: 'list' }, idle));
    const id = new RegExp(`^(${PROCESS_TAG}-\\d+) `, 'm').exec(list)![1]!;
    const ending = await session.handle({ action: 'wait', script: id }, idle);
    expect(text(ending)).toMatch(/^Script \S+ stopped\n/);
    expect(text(ending)).toContain('the client cancelled the call that watched it');
    expect(text(ending)).toMatch(/output:\nkept\n/);
  });

  it('lets a later wait take over the watch: the earlier one answers at once', async () => {
    const session = open();
    // The script runs until the test opens the gate, however slow the machine.
    const { open: openGate } = armGate();
    const id = scriptId(await session.handle({ code: 'await tools.echo({ gate: true }); return 1', yield_ms: 0 }, idle));
    const order: string[] = [];
    const earlier = session.handle({ action: 'wait', script: id, yield_ms: 60_000 }, idle).then((answer) => {
      order.push('earlier');
      return answer;
    });
    await until('the earlier wait to watch the script', async () => {
      const listed = (await session.handle({ action: 'list' }, idle)).structuredContent as {
        scripts: Array<{ id: string; watched: boolean }>;
      };
      return listed.scripts.some((script) => script.id === id && script.watched);
    });
    const later = session.handle({ action: 'wait', script: id, yield_ms: 1_000 }, idle).then((answer) => {
      order.push('later');
      return answer;
    });
    // The earlier wait answers "running" as soon as the later one takes over, not at its own 60 s.
    expect(text(await earlier)).toMatch(/running/);
    await later;
    expect(order).toEqual(['earlier', 'later']);
    openGate();
  });

  it('keeps endedScriptsKept ended scripts, forgetting first those whose ending was read', async () => {
    const session = open({ endedScriptsKept: 2 });
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) ids.push(scriptId(await session.handle({ code: `return ${i}` }, idle)));
    const list = text(await session.handle({ action: 'list' }, idle));
    expect(list).toMatch(/^Scripts: 0 running, 2 ended/);
    expect(list).toContain(ids[3]);
    expect(list).not.toContain(ids[0]);
  });

  it('refuses with ToolRefused a call to an upstream that has not listed its tools yet, and only under its prefix', async () => {
    const answer = await open().handle(
      {
        code:
          'const refused = await tools.late__anything({}).catch((e) => e.name + ": " + e.message);\n' +
          'let unknown; try { tools.other__x } catch (e) { unknown = e.message }\n' +
          'return [refused, unknown]',
      },
      idle,
    );
    const [refused, unknown] = (answer.structuredContent as { value: [string, string] }).value;
    expect(refused).toMatch(/^ToolRefused: UPSTREAM_CONNECTING: late__anything was refused: upstream "late" is still starting/);
    expect(unknown).toMatch(/tools\["other__x"\] is not a tool/);
  });

  it("passes an upstream's progress on a script's call to the call watching the script", async () => {
    const messages: string[] = [];
    await open().handle(
      { code: 'await tools.echo({})' },
      { signal: new AbortController().signal, onProgress: (m) => messages.push(m) },
    );
    expect(messages).toContain('tools["echo"]: 1/2 halfway');
  });

  it('lets a script call a denied tool by name and get ToolRefused, while ALL_TOOLS leaves it out', async () => {
    const answer = await open().handle(
      {
        code:
          'const names = ALL_TOOLS.map((t) => t.name); const keys = Object.keys(tools);\n' +
          'try { await tools.secret({}) } catch (e) { return [names, keys, e.name] }',
      },
      idle,
    );
    expect(answer.structuredContent).toMatchObject({ value: [['echo'], ['echo'], 'ToolRefused'] });
  });
});
