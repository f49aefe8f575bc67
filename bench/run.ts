/**
 * npm run bench: medians, each against a baseline measured in the same run, since these
 * machines are shared and noisy. `--quick` (CI) runs fewer rounds and writes nothing.
 */
import { execFileSync, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../src/isolate/engine-path.js';
import { descendantsRunning, median, memoryOf, now, sleep, timeProcess } from './measure.js';
import { startHttpInstance } from './http.js';
import { runCode, startDirect, startServer, type Connected } from './server.js';
import { measureStackNeeds } from './stack-depth.js';

const quick = process.argv.includes('--quick');
const RUNS = quick ? 3 : 15;
const CALLS = quick ? 100 : 1_000;
const CONCURRENT_SCRIPTS = 16;
/** A pooled child restores, warms up and says ready within this, on these machines. */
const POOL_SETTLE_MS = quick ? 1_500 : 2_500;
const MiB = 1024 * 1024;

interface Row {
  readonly name: string;
  readonly value: number;
  readonly unit: 'ms' | 'MiB' | 'KiB';
  readonly baselineName: string;
  readonly baseline: number;
  /** What the goal allows, as a test of value and baseline, and how it reads. */
  readonly goal?: { readonly text: string; readonly met: (value: number, baseline: number) => boolean };
}

const rows: Row[] = [];
const log = (line: string) => process.stderr.write(`${line}\n`);

async function repeat(runs: number, once: () => Promise<number>, pauseMs = 0): Promise<number> {
  const values: number[] = [];
  for (let i = 0; i < runs; i++) {
    values.push(await once());
    if (pauseMs > 0) await sleep(pauseMs);
  }
  return median(values);
}

async function withServer<T>(flags: string[], use: (server: Connected) => Promise<T>): Promise<T> {
  const server = await startServer(flags);
  try {
    return await use(server);
  } finally {
    await server.close();
  }
}

const FIRST_CALL = 'return (await tools.mark({})).content[0].text';

async function firstCall(server: Connected): Promise<number> {
  const sent = now();
  return Number(await runCode(server, FIRST_CALL)) - sent;
}

async function measureStart(): Promise<void> {
  log('node start…');
  const nodeStart = await repeat(RUNS, () => timeProcess(process.execPath, ['-e', '0']));
  log('first call, pool warm…');
  const warm = await withServer(['--pool', '2'], async (server) => {
    await sleep(POOL_SETTLE_MS);
    return repeat(RUNS, () => firstCall(server), POOL_SETTLE_MS / 2);
  });
  log('first call, pool off…');
  const cold = await withServer(['--pool', '0'], (server) => repeat(RUNS, () => firstCall(server), 100));
  rows.push(
    { name: 'first tool call, pool warm', value: warm, unit: 'ms', baselineName: 'node -e 0', baseline: nodeStart,
      goal: { text: '≤ 0.05 ×', met: (v, b) => v <= 0.05 * b } },
    { name: 'first tool call, pool off', value: cold, unit: 'ms', baselineName: 'node -e 0', baseline: nodeStart,
      goal: { text: '≤ 1.3 ×', met: (v, b) => v <= 1.3 * b } },
  );
}

/** Over HTTP against stdio, same run: a paced one-call run, and a fresh session's initialize + first tools/list. */
async function measureHttp(): Promise<void> {
  const oneCall = async (server: Connected): Promise<number> => {
    const started = now();
    await runCode(server, FIRST_CALL);
    return now() - started;
  };
  log('one-call run, stdio and HTTP…');
  const stdioRun = await withServer(['--pool', '2'], async (server) => {
    await sleep(POOL_SETTLE_MS);
    return repeat(RUNS, () => oneCall(server), POOL_SETTLE_MS / 2);
  });
  const http = await startHttpInstance(['--pool', '2']);
  try {
    const session = await http.session();
    await sleep(POOL_SETTLE_MS);
    const httpRun = await repeat(RUNS, () => oneCall(session), POOL_SETTLE_MS / 2);
    await session.close();
    log('first answer of a new session, stdio and HTTP…');
    // stdio: a session is a process (its upstreams start at initialize); HTTP: a session on a running server.
    const firstAnswer = async (connect: () => Promise<Connected>): Promise<number> => {
      const started = now();
      const fresh = await connect();
      await fresh.client.listTools();
      const took = now() - started;
      await fresh.close();
      return took;
    };
    const stdioFirst = await repeat(RUNS, () => firstAnswer(() => startServer(['--pool', '2'])), 200);
    const httpFirst = await repeat(RUNS, () => firstAnswer(() => http.session()), 200);
    const within = { text: '≤ 1.5 ×', met: (v: number, b: number) => v <= 1.5 * b };
    rows.push(
      { name: 'one-call run over HTTP, paced', value: httpRun, unit: 'ms', baselineName: 'the same over stdio', baseline: stdioRun, goal: within },
      { name: 'new session over HTTP: initialize + first tools/list', value: httpFirst, unit: 'ms',
        baselineName: 'the same over stdio (a new process)', baseline: stdioFirst, goal: within },
    );
  } finally {
    await http.close();
  }
}

async function measureCalls(): Promise<void> {
  log(`${CALLS} direct calls…`);
  const direct = await startDirect();
  const directMs = await repeat(RUNS, async () => {
    const started = now();
    for (let i = 0; i < CALLS; i++) await direct.client.callTool({ name: 'echo', arguments: { text: 'x' } });
    return now() - started;
  });
  await direct.close();
  log(`${CALLS} calls in a script…`);
  await withServer(['--pool', '2'], async (server) => {
    await sleep(POOL_SETTLE_MS);
    const time = async (code: string) => {
      const started = now();
      await runCode(server, code);
      return now() - started;
    };
    const sequential = await repeat(RUNS, () => time(`for (let i = 0; i < ${CALLS}; i++) await tools.echo({ text: "x" })`), 300);
    const parallel = await repeat(RUNS, () =>
      time(`await Promise.all(Array.from({ length: ${CALLS} }, () => tools.echo({ text: "x" })))`), 300);
    rows.push(
      { name: `${CALLS} sequential calls in one script`, value: sequential, unit: 'ms',
        baselineName: `${CALLS} sequential direct calls`, baseline: directMs, goal: { text: '≤ 1.3 ×', met: (v, b) => v <= 1.3 * b } },
      { name: `${CALLS} calls through Promise.all`, value: parallel, unit: 'ms',
        baselineName: `${CALLS} sequential direct calls`, baseline: directMs, goal: { text: '≤ 0.5 ×', met: (v, b) => v <= 0.5 * b } },
    );
  });
}

async function measureConcurrency(): Promise<void> {
  log(`${CONCURRENT_SCRIPTS} scripts at once…`);
  const code = 'for (let i = 0; i < 100; i++) await tools.echo({ text: "x" }); return "done"';
  const flags = ['--pool', '2', '--max-running-scripts', String(CONCURRENT_SCRIPTS)];
  const alone = await withServer(flags, async (server) => {
    await sleep(POOL_SETTLE_MS);
    return repeat(RUNS, async () => {
      const started = now();
      await runCode(server, code);
      return now() - started;
    }, 300);
  });
  await withServer(flags, async (server) => {
    await sleep(POOL_SETTLE_MS);
    const idleRss = memoryOf(server.pid, 'VmRSS') ?? 0;
    const started = now();
    await Promise.all(Array.from({ length: CONCURRENT_SCRIPTS }, () => runCode(server, code)));
    const total = now() - started;
    const peak = memoryOf(server.pid, 'VmHWM') ?? 0;
    rows.push(
      { name: `${CONCURRENT_SCRIPTS} scripts at once, total`, value: total, unit: 'ms', baselineName: 'one such script alone', baseline: alone },
      { name: `server peak RSS, ${CONCURRENT_SCRIPTS} scripts at once`, value: peak / MiB, unit: 'MiB', baselineName: 'server idle RSS', baseline: idleRss / MiB },
    );
  });
}

async function measureIdleChild(): Promise<void> {
  log('idle pooled child RSS…');
  const pooled = await withServer(['--pool', '2'], async (server) => {
    await sleep(POOL_SETTLE_MS);
    const pids = descendantsRunning(server.pid, 'engine/main.js');
    return median(pids.map((pid) => memoryOf(pid, 'VmRSS') ?? 0)) / MiB;
  });
  const idleNode = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  await sleep(500);
  const nodeRss = (memoryOf(idleNode.pid!, 'VmRSS') ?? 0) / MiB;
  idleNode.kill();
  rows.push({ name: 'idle pooled child RSS', value: pooled, unit: 'MiB', baselineName: 'idle node process RSS', baseline: nodeRss,
    goal: { text: '≤ baseline + 25 MiB', met: (v, b) => v <= b + 25 } });
}

async function measureStops(): Promise<void> {
  log('stop latency…');
  await withServer(['--pool', '2'], async (server) => {
    await sleep(POOL_SETTLE_MS);
    const stopOnce = async (code: string): Promise<number> => {
      const started = await server.client.callTool({ name: 'code_execution', arguments: { code, yield_ms: 300 } });
      const id = (started.structuredContent as { script: string }).script;
      const asked = now();
      await server.client.callTool({ name: 'code_execution', arguments: { action: 'stop', script: id } });
      return now() - asked;
    };
    const idle = await repeat(RUNS, () => stopOnce('await sleep(600000)'), 300);
    const busy = await repeat(RUNS, () => stopOnce('for (;;) {}'), 300);
    const native = await repeat(RUNS, () => stopOnce('const a = Array.from({ length: 300000 }, (_, i) => "s" + i); for (;;) a.join(",")'), 300);
    const within = { text: '≤ 500 ms', met: (v: number) => v <= 500 };
    rows.push(
      { name: 'stop of a busy loop', value: busy, unit: 'ms', baselineName: 'stop of an idle script', baseline: idle, goal: within },
      { name: 'stop of a loop of long native calls', value: native, unit: 'ms', baselineName: 'stop of an idle script', baseline: idle, goal: within },
    );
  });
}

/** Each deep path's need of V8 stack against the child's; in quick mode only that QuickJS trips first on each. */
function measureStack(): void {
  log('stack needed by deep paths…');
  for (const need of measureStackNeeds(quick)) {
    if (need.neededKiB === Number.POSITIVE_INFINITY) throw new Error(`${need.path}: the host's stack runs out before QuickJS's limit`);
    if (quick) continue;
    rows.push({ name: `V8 stack needed: ${need.path}`, value: need.neededKiB, unit: 'KiB', baselineName: "the child's V8 stack", baseline: need.childKiB,
      goal: { text: '≤ 0.67 × (margin 1.5)', met: (v, b) => v <= b / 1.5 } });
  }
}

function probeEngine(): Record<string, number> {
  const out = execFileSync(process.execPath, [join(PACKAGE_ROOT, 'dist', 'bench', 'probe-engine.js')], { encoding: 'utf8' });
  return JSON.parse(out) as Record<string, number>;
}

async function measureBreakdown(): Promise<Array<[string, number]>> {
  log('breakdown…');
  const probes = Array.from({ length: RUNS }, probeEngine);
  const field = (name: string) => median(probes.map((probe) => probe[name]!));
  const hop = await withServer(['--pool', '0'], (server) =>
    repeat(RUNS, async () => {
      const started = now();
      await server.client.callTool({ name: 'code_execution', arguments: { action: 'list' } });
      return now() - started;
    }),
  );
  return [
    ['Node start, to the first line of the child (in-process clock)', field('nodeStartMs')],
    ['engine modules imported (overlapping the wasm compile)', field('importMs')],
    ['wasm compile still to wait for after the imports', field('wasmCompileWaitMs')],
    ['prelude snapshot restore, cold', field('coldRestoreMs')],
    ['first script compile, cold (lazily compiled QuickJS code)', field('coldScriptCompileMs')],
    ['prelude snapshot restore, after a warm-up', field('warmRestoreMs')],
    ['script compile, after a warm-up', field('warmScriptCompileMs')],
    ['MCP hop: tools/call code_execution {action: "list"} round trip', hop],
  ];
}

function format(value: number, unit: string): string {
  return `${value < 10 ? value.toFixed(2) : value.toFixed(1)} ${unit}`;
}

function report(breakdown: Array<[string, number]>): string {
  const lines = [
    '| measurement | median | baseline | baseline median | ratio | goal | met |',
    '|---|---|---|---|---|---|---|',
  ];
  for (const row of rows) {
    const ratio = row.value / row.baseline;
    const goal = row.goal ? row.goal.text : '—';
    const met = row.goal ? (row.goal.met(row.value, row.baseline) ? 'yes' : 'no') : '—';
    lines.push(`| ${row.name} | ${format(row.value, row.unit)} | ${row.baselineName} | ${format(row.baseline, row.unit)} | ${ratio.toFixed(3)} | ${goal} | ${met} |`);
  }
  lines.push('', '| where a cold start goes (medians) | ms |', '|---|---|');
  for (const [name, ms] of breakdown) lines.push(`| ${name} | ${ms.toFixed(2)} |`);
  return lines.join('\n');
}

const cpu = cpus();
const machine = `${cpu.length} × ${cpu[0]?.model ?? 'unknown CPU'}, Node ${process.version}, ${new Date().toISOString().slice(0, 10)}`;
log(`bench${quick ? ' (quick)' : ''}: ${RUNS} runs each; ${machine}`);
await measureStart();
await measureHttp();
await measureCalls();
await measureConcurrency();
await measureIdleChild();
await measureStops();
measureStack();
const table = report(await measureBreakdown());
process.stdout.write(`${table}\n`);
if (!quick) {
  const results = join(PACKAGE_ROOT, 'bench', 'RESULTS.md');
  const analysis = join(PACKAGE_ROOT, 'bench', 'ANALYSIS.md');
  writeFileSync(results, `# Benchmark results\n\nMachine: ${machine}. Medians over ${RUNS} runs.\n\n${table}\n\nWhat the figures mean and what was cut: see [ANALYSIS.md](${analysis.slice(analysis.lastIndexOf('/') + 1)}).\n`);
  log(`written to ${results}`);
}
