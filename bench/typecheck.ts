/**
 * The type check's cost (issue 47), beside a one-call run's time end to end in the same run (the
 * server's check off, so the floor is the run alone): a warm check of a 40-line script against
 * 240 tools (server-everything's real schemas, fourteen times over under server prefixes), the
 * first check of a new checker (the compiler started, the catalog's project opened and warmed,
 * the check), what the checker adds to memory once idle (the compiler's process, and what the
 * server holds of it), and what the check adds to a one-call run in the server.
 *
 * TYPECHECK_COMPARE=<a built checkout> measures that checkout's checker the same way in the same
 * run (how TypeScript 5.9 in a worker thread and the native compiler were compared: ANALYSIS.md).
 */
import { InMemoryTransport, Client } from '@modelcontextprotocol/client';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { CatalogTool } from '../src/catalog/types.js';
import { ScriptChecker, type CheckOptions, type CheckOutcome } from '../src/typecheck/script-checker.js';
import { descendantsRunning, interleaved, median, memoryOf, sleep, timed } from './measure.js';
import { atMost, type BenchContext, type Row } from './report.js';
import { startServer, runCode, type Connected } from './server.js';

const ONE_CALL = 'return (await tools.echo({ text: "x" })).content[0].text';
const TOOLS = 240;
const MiB = 1024 * 1024;

interface EverythingServer {
  readonly createServer: () => { server: { connect(transport: unknown): Promise<void> }; cleanup: () => void };
}

/** server-everything's tools, listed over the SDK's in-memory pair, then named `s<k>__<tool>` until there are 240. */
async function catalogOf240(): Promise<CatalogTool[]> {
  const entry = createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/dist/server/index.js');
  const { createServer } = (await import(pathToFileURL(entry).href)) as EverythingServer;
  const { server, cleanup } = createServer();
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client(
    { name: 'bench', version: '0' },
    { capabilities: { sampling: {}, elicitation: { form: {} }, roots: {} } },
  );
  await client.connect(clientSide);
  const { tools } = await client.listTools();
  await client.close();
  cleanup();
  const catalog: CatalogTool[] = [];
  for (let k = 0; catalog.length < TOOLS; k++) {
    for (const tool of tools) {
      if (catalog.length === TOOLS) break;
      catalog.push({
        name: `s${k}__${tool.name}`,
        server: `s${k}`,
        upstreamName: tool.name,
        description: tool.description ?? '',
        inputSchema: tool.inputSchema,
        ...(tool.outputSchema !== undefined ? { outputSchema: tool.outputSchema } : {}),
        allowed: true,
      });
    }
  }
  return catalog;
}

/** A 40-line script of the kind a model writes: calls at once, a structured result read, text parsed, a loop, a value shaped. */
function fortyLines(round: number): string {
  const lines = [
    `const cities = ["New York", "Chicago", "Los Angeles"] as const;`,
    `const weather = await Promise.all(cities.map((location) => tools["s${round % 14}__get-structured-content"]({ location })));`,
    'const rows = weather.map((w, i) => ({ city: cities[i], t: w.structuredContent.temperature, h: w.structuredContent.humidity }));',
    'const warm = rows.filter((r) => r.t > 20).map((r) => r.city);',
    `const sums = await Promise.all([1, 2, 3, 4].map((a) => tools["s${(round + 1) % 14}__get-sum"]({ a, b: a * ${round} })));`,
    'const totals: number[] = [];',
    'for (const s of sums) {',
    '  const text = s.content[0].text ?? "";',
    '  const match = / is (-?\\d+)/.exec(text);',
    '  if (match) totals.push(Number(match[1]));',
    '}',
    `const echoed = await tools["s2__echo"]({ message: "round ${round}" });`,
    'const said = echoed.content.map((c) => c.text).join(" ");',
    'interface Summary { warm: string[]; total: number; said: string; at: number }',
    'const summary: Summary = { warm, total: totals.reduce((a, b) => a + b, 0), said, at: Date.now() };',
    'await store("summary", summary, { ttlMs: 60_000 });',
    'const earlier = await load("summary");',
    'if (earlier && earlier.total !== summary.total) console.log("changed", earlier.total, summary.total);',
    'const byInitial: Record<string, string[]> = {};',
    'for (const r of rows) (byInitial[r.city[0]] ??= []).push(r.city);',
    'const hits = searchTools("sum", 3).map((h) => h.name);',
    'const env = await tools["s3__get-env"]({});',
    'let parsed: Record<string, unknown> = {};',
    'try {',
    '  parsed = JSON.parse(env.content[0].text ?? "{}");',
    '} catch (error) {',
    '  console.error("not JSON", error);',
    '}',
    'const keys = Object.keys(parsed).filter((k) => k.startsWith("P")).sort();',
    'const image = await tools["s4__get-tiny-image"]({});',
    'const kinds = image.content.map((c) => c.type);',
    'if (kinds.includes("image")) show(image);',
    'notify({ step: "done", warm: warm.length });',
    'const sleepy = await Promise.race([sleep(1).then(() => "slept"), tools["s5__echo"]({ message: "race" })]);',
    'const label = typeof sleepy === "string" ? sleepy : sleepy.content[0].text;',
    'text(`${label}\\n`);',
    'const report = { summary, byInitial, hits, keys, kinds, label };',
    'console.log(JSON.stringify(report).length);',
    'return report;',
  ];
  return lines.join('\n');
}

/** A checker as the bench uses one: this checkout's, or the compared checkout's. */
interface Checker {
  check(code: string, catalog: readonly CatalogTool[], options: CheckOptions): Promise<CheckOutcome>;
  close(): Promise<void>;
}

interface CheckerKind {
  /** How the rows name it. */
  readonly label: string;
  readonly make: () => Checker;
}

/** The native compiler's process, as /proc shows it under this one. */
const COMPILER_COMMAND = '@typescript/typescript-';

const TIME_LIMIT_MS = 60_000;

async function checkerKinds(ctx: BenchContext): Promise<CheckerKind[]> {
  const kinds: CheckerKind[] = [{ label: 'native TypeScript 7', make: () => new ScriptChecker({ timeLimitMs: TIME_LIMIT_MS }) }];
  const compared = process.env.TYPECHECK_COMPARE;
  if (compared !== undefined && compared !== '') {
    const module = join(compared, 'dist', 'src', 'typecheck', 'script-checker.js');
    const { ScriptChecker: Other } = (await import(pathToFileURL(module).href)) as {
      ScriptChecker: new (options: { timeLimitMs: number }) => Checker;
    };
    ctx.log(`comparing with the checker of ${compared}`);
    kinds.push({ label: `the checker of ${compared}`, make: () => new Other({ timeLimitMs: TIME_LIMIT_MS }) });
  }
  return kinds;
}

export async function measureTypecheck(ctx: BenchContext): Promise<Row[]> {
  const catalog = await catalogOf240();
  const kinds = await checkerKinds(ctx);
  const rows: Row[] = [];
  // The floor: a one-call run with the server's own check off.
  const server = await startServer(['--pool', '2', '--type-check', 'off']);
  try {
    await runCode(server, ONE_CALL);
    for (const kind of kinds) rows.push(await warmCheck(kind, catalog, server, ctx));
    for (const kind of kinds) rows.push(await firstCheck(kind, catalog, server, ctx));
    rows.push(await checkedRun(server, ctx));
  } finally {
    await server.close();
  }
  for (const kind of kinds) rows.push(await checkerMemory(kind, catalog, ctx));
  return rows;
}

async function warmCheck(kind: CheckerKind, catalog: readonly CatalogTool[], server: Connected, ctx: BenchContext): Promise<Row> {
  const checker = kind.make();
  try {
    const first = await checker.check(fortyLines(0), catalog, { mode: 'error' });
    if (first.kind !== 'passed') throw new Error(`bench: the 40-line script does not pass the check: ${JSON.stringify(first)}`);
    ctx.log(`${kind.label}: warm checks of a 40-line script against ${catalog.length} tools, beside one-call runs…`);
    let round = 1;
    const paced = await interleaved(
      ctx.rounds,
      () => timed(() => checker.check(fortyLines(round++), catalog, { mode: 'error' })),
      () => timed(() => runCode(server, ONE_CALL)),
      100,
    );
    return {
      name: `a warm type check of a 40-line script, ${catalog.length} tools (${kind.label})`,
      value: paced.subject,
      unit: 'ms',
      floorName: 'a paced one-call run, end to end',
      floor: paced.floor,
      goal: atMost(0.1),
    };
  } finally {
    await checker.close();
  }
}

async function firstCheck(
  kind: CheckerKind,
  catalog: readonly CatalogTool[],
  server: Connected,
  ctx: BenchContext,
): Promise<Row> {
  ctx.log(`${kind.label}: first checks of a new checker…`);
  const firsts: number[] = [];
  for (let i = 0; i < (ctx.quick ? 1 : 3); i++) {
    const fresh = kind.make();
    firsts.push(await timed(() => fresh.check(fortyLines(i), catalog, { mode: 'error' })));
    await fresh.close();
  }
  const run = await timed(() => runCode(server, ONE_CALL));
  return {
    name: `the first check of a new checker (${kind.label}: started, ${catalog.length} tools' project, warm-up, the check)`,
    value: median(firsts),
    unit: 'ms',
    floorName: 'a one-call run',
    floor: run,
    goal: { text: '≤ 1 s', met: (value) => value <= 1_000 },
  };
}

/**
 * A one-call run with the server's check on (the default) against one with it off: what a user
 * pays per script. Each round's script differs by a comment, so no check is answered from the
 * checker's findings kept for a script seen before.
 */
async function checkedRun(unchecked: Connected, ctx: BenchContext): Promise<Row> {
  const checked = await startServer(['--pool', '2']);
  try {
    let round = 0;
    const script = () => `// round ${round++}\n${ONE_CALL}`;
    await runCode(checked, script());
    ctx.log('one-call runs with the check on, beside runs with it off…');
    const paced = await interleaved(
      ctx.rounds,
      () => timed(() => runCode(checked, script())),
      () => timed(() => runCode(unchecked, script())),
      100,
    );
    return {
      name: 'a paced one-call run with the type check on (a new script each round)',
      value: paced.subject,
      unit: 'ms',
      floorName: 'the same with typeCheck off',
      floor: paced.floor,
    };
  } finally {
    await checked.close();
  }
}

/**
 * What a checker adds once idle after checks: this process's resident memory (collected first
 * when run with --expose-gc: a compared checker's worker thread, the API's caches) and the compiler's process.
 */
async function checkerMemory(kind: CheckerKind, catalog: readonly CatalogTool[], ctx: BenchContext): Promise<Row> {
  const collect = (globalThis as { gc?: () => void }).gc;
  collect?.();
  await sleep(200);
  const before = process.memoryUsage().rss;
  const checker = kind.make();
  try {
    for (let i = 0; i < (ctx.quick ? 2 : 20); i++) await checker.check(fortyLines(i), catalog, { mode: 'error' });
    collect?.();
    await sleep(1_000);
    const compilers = descendantsRunning(process.pid, COMPILER_COMMAND).map((pid) => memoryOf(pid, 'VmRSS') ?? 0);
    const added = process.memoryUsage().rss - before + compilers.reduce((sum, bytes) => sum + bytes, 0);
    return {
      name: `what a checker adds, idle after 20 checks (${kind.label}, ${catalog.length} tools)`,
      value: added / MiB,
      unit: 'MiB',
      floorName: 'this process before it',
      floor: before / MiB,
      goal: { text: '≤ 40 MiB', met: (value) => value <= 40 },
      ...(compilers.length > 0 ? { note: `the compiler's process: ${(compilers[0]! / MiB).toFixed(1)} MiB of it` } : {}),
    };
  } finally {
    await checker.close();
  }
}
