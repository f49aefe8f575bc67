// Approvals end to end (issue 27): the SDK's real client drives bin/codemode-mcp.js over stdio, a
// person's answers given by its elicitation handler, and the deletable fixture upstream records
// every call that reaches it, so each test proves what was sent and what was not.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import type { ElicitRequest, ElicitResult } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import {
  BIN,
  SERVER_RUNTIME,
  binArgs,
  fixturePath,
  nodeEntry,
  runBin,
  stderrLine,
  structuredOf,
  textOf,
  valueOf,
  writeConfig,
} from '../support/mcp-client.js';
import { startInProcess, type InProcessServer } from '../support/in-process-server.js';
import { makeTempDir } from '../support/temp-dirs.js';
import { until } from '../support/waiting.js';
import { connectHttp, startHttpServer } from '../support/http-server.js';
import { TasksClient, resultOf } from '../support/tasks-client.js';
import { ALL_ACTING, rawActing } from '../support/acting-characters.js';
import { describeText } from '../../src/telemetry/call-outcome.js';

interface Recorded {
  readonly tool: string;
  readonly id?: string;
}

/** A config whose one upstream is the deletable fixture, recording to a fresh file; `entry`: more fields of its entry. */
function deletableConfig(label: string, settings: Record<string, unknown> = {}, entry: Record<string, unknown> = {}) {
  const dir = makeTempDir(label);
  const recordFile = join(dir, 'record.jsonl');
  const auditFile = join(dir, 'audit.jsonl');
  const config = writeConfig(
    { items: nodeEntry(fixturePath('upstreams/deletable.mjs'), [], { env: { RECORD_FILE: recordFile }, ...entry }) },
    { pool: 0, auditLog: auditFile, ...settings },
  );
  const recorded = (): Recorded[] =>
    existsSync(recordFile)
      ? readFileSync(recordFile, 'utf8')
          .split('\n')
          .filter((line) => line !== '')
          .map((line) => JSON.parse(line) as Recorded)
      : [];
  const deleted = () =>
    recorded()
      .filter((entry) => entry.tool === 'delete_item')
      .map((entry) => entry.id);
  const audit = () =>
    readFileSync(auditFile, 'utf8')
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  return { config, deleted, audit, reset: () => writeFileSync(recordFile, '') };
}

/** A person at the client: each question is kept, and answered as the test says (at once, or when it chooses). */
function person() {
  const questions: ElicitRequest['params'][] = [];
  let answer: (request: ElicitRequest) => ElicitResult | Promise<ElicitResult> = () => ({ action: 'decline' });
  return {
    questions,
    answerWith(next: typeof answer) {
      answer = next;
    },
    onElicit: (request: ElicitRequest) => {
      questions.push(request.params);
      return answer(request);
    },
  };
}

const choose = (decision: string): ElicitResult => ({ action: 'accept', content: { decision } });

describe('a 2025 client whose person answers', () => {
  const setup = deletableConfig('approvals-2025');
  const at = person();
  let server: InProcessServer;

  beforeAll(async () => {
    server = await startInProcess(['--config', setup.config], {
      capabilities: { elicitation: { form: {} } },
      onElicit: at.onElicit,
    });
  });
  beforeEach(() => {
    at.questions.length = 0;
    setup.reset();
  });
  afterAll(async () => {
    expect(await server.close()).toEqual([]);
  });

  test('the tools list and the description say which tools ask', async () => {
    const { tools } = await server.client.listTools();
    expect(tools.find((tool) => tool.name === 'code_execution')?.description).toContain('delete_item [asks]');
  });

  test('an allowed call is sent once the person says so, and the question shows the tool and its arguments', async () => {
    at.answerWith(() => choose('allow'));
    const result = await server.run({ code: 'return (await tools.delete_item({ id: "a" })).content[0].text' });
    expect(valueOf(result)).toBe('deleted a');
    expect(setup.deleted()).toEqual(['a']);
    expect(at.questions).toHaveLength(1);
    expect(at.questions[0]!.message).toContain('a call of delete_item ("Delete Item")');
    expect(at.questions[0]!.message).toContain('Annotations: destructiveHint, not readOnlyHint.');
    expect(at.questions[0]!.message).toContain('- delete_item({"id":"a"})');
  });

  test('a denied call rejects with ToolRefused saying a person denied it, nothing sent, and the ending counts it', async () => {
    at.answerWith(() => ({ action: 'decline' }));
    const result = await server.run({
      code: 'try { await tools.delete_item({ id: "b" }) } catch (e) { return e.name + ": " + e.message }',
    });
    expect(valueOf(result)).toBe(
      'ToolRefused: APPROVAL_DENIED: delete_item was refused: a person denied it. Nothing was sent; it is safe to retry later.',
    );
    expect(setup.deleted()).toEqual([]);
    expect(textOf(result)).toContain('calls: 0 answered, 1 denied by a person');
    expect(setup.audit()).toContainEqual(expect.objectContaining({ tool: 'delete_item', approval: 'denied', calls: 1 }));
    // Never sent, the call still has its line (issue 45).
    expect(setup.audit()).toContainEqual(
      expect.objectContaining({
        principal: 'local',
        tool: 'delete_item',
        upstream: 'items',
        args: describeText('{"id":"b"}'),
        outcome: 'refused',
        error: 'APPROVAL_DENIED',
      }),
    );
  });

  test.each([
    [
      'a Promise.all of 50 deletes is one question, and "allow all" sends every one',
      'const ids = Array.from({ length: 50 }, (_, i) => String(i)); await Promise.all(ids.map((id) => tools.delete_item({ id }))); return "done"',
    ],
    [
      'a loop of 50 deletes, one after another, is one question',
      'for (let i = 0; i < 50; i++) await tools.delete_item({ id: String(i) }); return "done"',
    ],
  ])('%s', async (_title, code) => {
    at.answerWith(() => choose('allow'));
    const result = await server.run({ code });
    expect(valueOf(result)).toBe('done');
    expect(at.questions).toHaveLength(1);
    expect(setup.deleted()).toHaveLength(50);
  });

  test('"for the rest of this script" covers its later calls between other tools; a new script asks again', async () => {
    at.answerWith(() => choose('allow-script'));
    const code =
      'for (let i = 0; i < 5; i++) { await tools.list_items({}); await tools.delete_item({ id: String(i) }) } return "done"';
    expect(valueOf(await server.run({ code }))).toBe('done');
    expect(at.questions).toHaveLength(1);
    expect(valueOf(await server.run({ code }))).toBe('done');
    expect(at.questions).toHaveLength(2);
    expect(setup.deleted()).toHaveLength(10);
  });

  test('while the person has not answered, the script answers "waiting for approval", and nothing is sent', async () => {
    let answer!: (result: ElicitResult) => void;
    let asked!: () => void;
    const questioned = new Promise<void>((resolve) => (asked = resolve));
    at.answerWith(
      () =>
        new Promise<ElicitResult>((resolve) => {
          answer = resolve;
          asked();
        }),
    );
    const running = server.run({ code: 'return (await tools.delete_item({ id: "w" })).content[0].text' });
    await questioned;
    const listed = structuredOf(await server.run({ action: 'list' })) as { scripts: Array<{ id: string; status: string }> };
    const script = listed.scripts.find((entry) => entry.status === 'running')!.id;
    const waiting = await server.run({ action: 'wait', script, yield_ms: 0 });
    expect(textOf(waiting)).toContain('waiting for approval: delete_item({"id":"w"})');
    expect(setup.deleted()).toEqual([]);
    answer(choose('allow'));
    const ended = await server.run({ action: 'wait', script });
    expect(valueOf(ended)).toBe('deleted w');
    expect(setup.deleted()).toEqual(['w']);
    await running;
  });

  test('two scripts asking at once get a question each, and each answer goes to its own script', async () => {
    at.answerWith((request) => (request.params.message.includes('"x"') ? choose('allow') : { action: 'decline' }));
    const [x, y] = await Promise.all([
      server.run({ code: 'return (await tools.delete_item({ id: "x" })).content[0].text' }),
      server.run({ code: 'try { await tools.delete_item({ id: "y" }) } catch (e) { return e.message }' }),
    ]);
    expect(at.questions).toHaveLength(2);
    expect(valueOf(x)).toBe('deleted x');
    expect(valueOf(y)).toMatch(/^APPROVAL_DENIED: /);
    expect(setup.deleted()).toEqual(['x']);
  });

  // Regression (issue 45): an answer of "review" to a question about one call reached the review
  // one by one, where "review" again counted as allow and sent the call.
  test('an answer that is not an allow the question offered sends nothing: "review" to one call, or malformed minutes', async () => {
    const code = 'try { await tools.delete_item({ id: "x" }) } catch (e) { return e.message }';
    at.answerWith(() => choose('review'));
    expect(valueOf(await server.run({ code }))).toBe(
      'APPROVAL_DENIED: delete_item was refused: the answer to its question allowed nothing (its decision was "review", ' +
        'which a question about one call does not offer). Nothing was sent; it is safe to retry later.',
    );
    at.answerWith(() => ({ action: 'accept', content: { decision: 'allow-owner', minutes: 0 } }));
    expect(valueOf(await server.run({ code }))).toBe(
      'APPROVAL_DENIED: delete_item was refused: the answer to its question allowed nothing (its minutes was number 0). ' +
        'Nothing was sent; it is safe to retry later.',
    );
    expect(at.questions).toHaveLength(2);
    expect(setup.deleted()).toEqual([]);
  });

  // Last in this session: its grant would cover the tests after it.
  test('"for this session" for some minutes covers the later scripts of the session without asking', async () => {
    at.answerWith(() => ({ action: 'accept', content: { decision: 'allow-owner', minutes: 5 } }));
    const code = 'return (await tools.delete_item({ id: "o" })).content[0].text';
    expect(valueOf(await server.run({ code }))).toBe('deleted o');
    expect(valueOf(await server.run({ code }))).toBe('deleted o');
    expect(at.questions).toHaveLength(1);
    expect(setup.audit()).toContainEqual(
      expect.objectContaining({ tool: 'delete_item', approval: 'allowed', scope: 'this session, for 5 min' }),
    );
  });
});

// Regression (issue 45): a tool the entry's deny named and that was annotated destructive was put
// to the person as a question before the deny applied.
describe("a tool the entry's deny names, annotated destructive", () => {
  test('is refused at once with ToolRefused, never asked about, whatever the approvals globs say', async () => {
    const setup = deletableConfig(
      'approvals-deny-wins',
      { approvals: { ask: ['*delete*'], allow: ['*'] } },
      { deny: ['delete_item'], approvals: { ask: ['delete_*'] } },
    );
    const at = person();
    at.answerWith(() => choose('allow'));
    const server = await startInProcess(['--config', setup.config], {
      capabilities: { elicitation: { form: {} } },
      onElicit: at.onElicit,
    });
    const result = await server.run({
      code: 'try { await tools.delete_item({ id: "d" }) } catch (e) { return e.name + ": " + e.message }',
    });
    expect(valueOf(result)).toMatch(/^ToolRefused: TOOL_DENIED: delete_item was refused: /);
    expect(at.questions).toEqual([]);
    expect(setup.deleted()).toEqual([]);
    expect(setup.audit()).toEqual([expect.objectContaining({ tool: 'delete_item', outcome: 'refused', error: 'TOOL_DENIED' })]);
    const { stdout } = await runBin(['tools', '--config', setup.config]);
    expect(stdout).toMatch(
      /Denied by the config .*\n {2}delete_item {2}\[server "items", tool "delete_item"\] {2}\(the server entry's deny "delete_item"\)/,
    );
    expect(await server.close()).toEqual([]);
  });
});

describe('a script stopped while its call waits for approval', () => {
  test('withdraws the question, and the call is never sent', async () => {
    const setup = deletableConfig('approvals-stop');
    let withdrawn!: () => void;
    const questionWithdrawn = new Promise<void>((resolve) => (withdrawn = resolve));
    let asked!: () => void;
    const questioned = new Promise<void>((resolve) => (asked = resolve));
    const server = await startInProcess(['--config', setup.config], {
      capabilities: { elicitation: { form: {} } },
      onElicit: () => {
        asked();
        return new Promise<ElicitResult>(() => {});
      },
    });
    server.client.setNotificationHandler('notifications/cancelled', () => withdrawn());
    const running = server.run({ code: 'await tools.delete_item({ id: "s" }); return "sent"' });
    await questioned;
    const listed = structuredOf(await server.run({ action: 'list' })) as { scripts: Array<{ id: string }> };
    const stopped = await server.run({ action: 'stop', script: listed.scripts[0]!.id });
    expect(structuredOf(stopped).status).toBe('stopped');
    await questionWithdrawn;
    await stderrLine(
      server,
      /approval: question withdrawn, the script ended; 1 call\(s\) of delete_item by script \S+ never sent/,
    );
    await running;
    expect(setup.deleted()).toEqual([]);
    expect(await server.close()).toEqual([]);
  });
});

describe.each([
  ['2025-11-25', undefined],
  ['2026-07-28', { mode: { pin: '2026-07-28' as const } }],
])('a client speaking %s over HTTP', (_revision, versionNegotiation) => {
  test('is asked, and nothing is sent until its person allows', async () => {
    const setup = deletableConfig('approvals-http');
    const server = await startHttpServer(['--config', setup.config]);
    const at = person();
    at.answerWith((request) => (request.params.message.includes('"yes"') ? choose('allow') : { action: 'decline' }));
    const client = await connectHttp(server.url, {
      capabilities: { elicitation: { form: {} } },
      onElicit: at.onElicit,
      ...(versionNegotiation !== undefined ? { versionNegotiation } : {}),
    });
    const allowed = await client.run({ code: 'return (await tools.delete_item({ id: "yes" })).content[0].text' });
    const denied = await client.run({ code: 'try { await tools.delete_item({ id: "no" }) } catch (e) { return e.message }' });
    expect(valueOf(allowed)).toBe('deleted yes');
    expect(valueOf(denied)).toMatch(/^APPROVAL_DENIED: /);
    expect(at.questions).toHaveLength(2);
    expect(setup.deleted()).toEqual(['yes']);
    await client.close();
    expect((await server.stop()).left).toEqual([]);
  });
});

describe('a question no one answers', () => {
  test('is refused after approvalTimeoutMs, and nothing is sent', async () => {
    const setup = deletableConfig('approvals-timeout', { approvalTimeoutMs: '1s' });
    const server = await startInProcess(['--config', setup.config], {
      capabilities: { elicitation: { form: {} } },
      onElicit: () => new Promise<ElicitResult>(() => {}),
    });
    const result = await server.run({ code: 'try { await tools.delete_item({ id: "late" }) } catch (e) { return e.message }' });
    expect(valueOf(result)).toMatch(/^APPROVAL_TIMED_OUT: delete_item was refused: no person answered within 1000 ms/);
    expect(textOf(result)).toContain('approvals: 1 call refused: no person answered within approvalTimeoutMs');
    expect(setup.deleted()).toEqual([]);
    expect(setup.audit()).toContainEqual(
      expect.objectContaining({ tool: 'delete_item', outcome: 'refused', error: 'APPROVAL_TIMED_OUT' }),
    );
    expect(await server.close()).toEqual([]);
  });
});

describe('a client that cannot ask a person (no elicitation), with approvalVia "client"', () => {
  test('gets the fallback, refuse by default, said in the answer and the log; nothing is sent', async () => {
    const setup = deletableConfig('approvals-fallback', { approvalVia: 'client' });
    const server = await startInProcess(['--config', setup.config]);
    const result = await server.run({
      code: 'try { await tools.delete_item({ id: "f" }) } catch (e) { return e.message }',
    });
    expect(valueOf(result)).toMatch(/^APPROVAL_UNAVAILABLE: delete_item was refused: its calls need a person's approval/);
    expect(textOf(result)).toContain(
      `approvals: 1 call refused without asking: the MCP client can't ask a person (it declared no elicitation), and approvalFallback is "refuse"`,
    );
    expect(server.stderr()).toMatch(/approval: script \S+ called delete_item, which asks for approval, .* refused/);
    expect(setup.deleted()).toEqual([]);
    expect(await server.close()).toEqual([]);
  });

  // Regression (issue 45): the fallback had one audit line per script and tool, and the refused calls none.
  test('has an audit line for every call the fallback refuses, and a call line for each, with its arguments digest', async () => {
    const setup = deletableConfig('approvals-fallback-audit', { approvalVia: 'client' });
    const server = await startInProcess(['--config', setup.config]);
    await server.run({ code: 'for (const id of ["f1", "f2", "f3"]) { try { await tools.delete_item({ id }) } catch {} }' });
    const lines = setup.audit();
    expect(lines.filter((line) => line.approval === 'fallback_refused')).toHaveLength(3);
    expect(lines.filter((line) => line.outcome !== undefined)).toEqual(
      ['f1', 'f2', 'f3'].map((id): unknown =>
        expect.objectContaining({
          principal: 'local',
          tool: 'delete_item',
          args: describeText(JSON.stringify({ id })),
          outcome: 'refused',
          error: 'APPROVAL_UNAVAILABLE',
        }),
      ),
    );
    expect(server.stderr().match(/called delete_item, which asks for approval/g)).toHaveLength(1);
    expect(await server.close()).toEqual([]);
  });

  test('with approvalFallback "allow", the call is sent unasked, and the answer says so', async () => {
    const setup = deletableConfig('approvals-fallback-allow', { approvalVia: 'client', approvalFallback: 'allow' });
    const server = await startInProcess(['--config', setup.config]);
    const result = await server.run({ code: 'return (await tools.delete_item({ id: "g" })).content[0].text' });
    expect(valueOf(result)).toBe('deleted g');
    expect(textOf(result)).toContain('approvals: 1 call sent without asking');
    expect(setup.deleted()).toEqual(['g']);
    expect(await server.close()).toEqual([]);
  });
});

describe('a 2026-07-28 client', () => {
  test('is asked through input_required on the run watching the script, and its answers decide', async () => {
    const setup = deletableConfig('approvals-2026');
    const at = person();
    const server = await startInProcess(['--config', setup.config], {
      capabilities: { elicitation: { form: {} } },
      onElicit: at.onElicit,
      versionNegotiation: { mode: { pin: '2026-07-28' } },
    });
    at.answerWith(() => choose('allow'));
    const allowed = await server.run({ code: 'return (await tools.delete_item({ id: "m" })).content[0].text' });
    expect(valueOf(allowed)).toBe('deleted m');
    at.answerWith(() => ({ action: 'decline' }));
    const denied = await server.run({ code: 'try { await tools.delete_item({ id: "n" }) } catch (e) { return e.message }' });
    expect(valueOf(denied)).toMatch(/^APPROVAL_DENIED: delete_item was refused: a person denied it/);
    expect(at.questions).toHaveLength(2);
    expect(setup.deleted()).toEqual(['m']);
    expect(await server.close()).toEqual([]);
  });
});

describe('codemode-mcp run', () => {
  test('without a terminal, gives an ask call the fallback: refused, nothing sent', async () => {
    const setup = deletableConfig('approvals-run');
    const file = join(makeTempDir('approvals-run-script'), 'script.js');
    writeFileSync(file, 'try { await tools.delete_item({ id: "r" }) } catch (e) { return e.message }');
    const { stdout, left } = await runBin(['run', file, '--config', setup.config]);
    expect(stdout).toContain('APPROVAL_UNAVAILABLE: delete_item was refused');
    expect(stdout).toContain(
      "approvals: 1 call refused without asking: stdin is not a terminal, so codemode-mcp run can't ask a person",
    );
    expect(setup.deleted()).toEqual([]);
    expect(setup.audit()).toEqual([
      expect.objectContaining({ principal: 'local', tool: 'delete_item', approval: 'fallback_refused', calls: 1 }),
      expect.objectContaining({ principal: 'local', tool: 'delete_item', outcome: 'refused', error: 'APPROVAL_UNAVAILABLE' }),
    ]);
    expect(left).toEqual([]);
  });

  // util-linux's script(1) gives the command a real terminal: the question shows on it, and the answer is typed after it.
  test.runIf(existsSync('/usr/bin/script'))('on a terminal, asks the person there, and sends the call once allowed', async () => {
    const setup = deletableConfig('approvals-run-tty');
    const file = join(makeTempDir('approvals-run-tty-script'), 'script.js');
    writeFileSync(file, 'return (await tools.delete_item({ id: "t" })).content[0].text');
    const command = [SERVER_RUNTIME, ...binArgs(BIN, ['run', file, '--config', setup.config])].map((arg) => `'${arg}'`).join(' ');
    const terminal = execa('/usr/bin/script', ['-qfec', command, '/dev/null'], { reject: false, stdin: 'pipe' });
    let shown = '';
    const questionShown = new Promise<void>((resolve) =>
      terminal.stdout.on('data', (chunk: Buffer) => {
        shown += chunk.toString();
        if (shown.includes('Choose 1-4')) resolve();
      }),
    );
    await questionShown;
    expect(setup.deleted()).toEqual([]);
    terminal.stdin.write('1\n');
    await terminal;
    expect(shown).toContain('  1. Allow once');
    expect(shown).toContain('value: "deleted t"');
    expect(setup.deleted()).toEqual(['t']);
  });
});

describe('a script run as an MCP task', () => {
  test("its approval question is the task's input_required, answered with tasks/update; a concurrent task is not held", async () => {
    const setup = deletableConfig('approvals-task');
    const server = await startHttpServer(['--config', setup.config]);
    const client = new TasksClient(server.url, { capabilities: { elicitation: { form: {} } } });
    const other = resultOf(
      await client.request('tools/call', {
        name: 'code_execution',
        arguments: { code: 'for (;;) await new Promise((r) => setTimeout(r, 20))', yield_ms: 0 },
      }),
    );
    const asking = resultOf(
      await client.request('tools/call', {
        name: 'code_execution',
        arguments: { code: 'return (await tools.delete_item({ id: "t" })).content[0].text', yield_ms: 0 },
      }),
    );
    expect(asking).toMatchObject({ resultType: 'task' });
    const waiting = await until(`task ${String(asking.taskId)} to ask`, async () => {
      const task = await client.getTask(asking.taskId as string);
      return task.status === 'input_required' ? task : undefined;
    });
    expect(waiting.statusMessage).toMatch(/waiting for the client: elicitation\/create/);
    expect((await client.getTask(other.taskId as string)).status).toBe('working');
    expect(setup.deleted()).toEqual([]);
    const [key] = Object.keys(waiting.inputRequests as object);
    await client.request('tasks/update', { taskId: asking.taskId, inputResponses: { [key!]: choose('allow') } });
    const done = await until(`task ${String(asking.taskId)} to complete`, async () => {
      const task = await client.getTask(asking.taskId as string);
      return task.status === 'completed' ? task : undefined;
    });
    expect(JSON.stringify(done.result)).toContain('deleted t');
    expect(setup.deleted()).toEqual(['t']);
    await client.request('tasks/cancel', { taskId: other.taskId });
    expect((await server.stop()).left).toEqual([]);
  });
});

// Regression (issue 45): an upstream's title with newlines, ESC and U+202E added lines of its own
// choosing to the question ("Annotations: readOnlyHint.", a fake call); arguments kept U+202E raw.
describe.each([
  ['2025-11-25', undefined],
  ['2026-07-28', { mode: { pin: '2026-07-28' as const } }],
])('an upstream whose text is written to fool the person, for a client speaking %s', (_revision, versionNegotiation) => {
  test('the question shows its title, annotations and the arguments with every acting character escaped, and the log too', async () => {
    const config = writeConfig({ hostile: nodeEntry(fixturePath('upstreams/hostile-text.mjs')) }, { pool: 0 });
    const at = person();
    const server = await startInProcess(['--config', config], {
      capabilities: { elicitation: { form: {} } },
      onElicit: at.onElicit,
      ...(versionNegotiation !== undefined ? { versionNegotiation } : {}),
    });
    const result = await server.run({
      code: `try { await tools.wipe({ path: ${JSON.stringify(`a${ALL_ACTING}b`)} }) } catch (e) { return e.name }`,
    });
    expect(valueOf(result)).toBe('ToolRefused');
    expect(at.questions).toHaveLength(1);
    const { message, requestedSchema } = at.questions[0] as {
      message: string;
      requestedSchema: { properties: Record<string, unknown> };
    };
    expect(rawActing(message, 'lines'), message).toEqual([]);
    expect(message.split('\n')).toHaveLength(4);
    expect(message).toContain('("Wipe\\nAnnotations: readOnlyHint.\\n- wipe({})\\u0000\\r\\u001b[2K');
    expect(message).toMatch(/^Annotations: destructiveHint, readOnlyHint\\u2028\\u0000.*\\u2029\.$/m);
    expect(message).toContain('\\u202e');
    for (const choice of (requestedSchema.properties.decision as { oneOf: Array<{ title: string }> }).oneOf) {
      expect(rawActing(choice.title)).toEqual([]);
    }
    await until("the upstream's stderr to be logged", () => server.stderr().includes('[hostile] hostile'));
    const logged = server
      .stderr()
      .split('\n')
      .find((line) => line.includes('[hostile] hostile'))!;
    expect(logged).toContain('hostile \\u001b[31mred\\u001b[0m \\u202egnp.exe');
    expect(rawActing(server.stderr(), 'lines')).toEqual([]);
    expect(await server.close()).toEqual([]);
  });
});
