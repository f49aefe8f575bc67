/**
 * The type check's cost (issue 47), beside a one-call run's time end to end in the same run: a
 * warm check of a 40-line script against 240 tools (server-everything's real schemas, fourteen
 * times over under server prefixes), the first check of a new checker (its worker started,
 * TypeScript loaded, the catalog's program built), and what the checker adds to the process's
 * memory once idle.
 */
import { InMemoryTransport, Client } from '@modelcontextprotocol/client';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import type { CatalogTool } from '../src/catalog/types.js';
import { ScriptChecker } from '../src/typecheck/script-checker.js';
import { interleaved, median, sleep, timed } from './measure.js';
import { atMost, type BenchContext, type Row } from './report.js';
import { startServer, runCode } from './server.js';

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

export async function measureTypecheck(ctx: BenchContext): Promise<Row[]> {
  const catalog = await catalogOf240();
  const server = await startServer(['--pool', '2']);
  const rows: Row[] = [];
  try {
    await runCode(server, ONE_CALL);
    const checker = new ScriptChecker({ timeLimitMs: 60_000 });
    try {
      const first = await checker.check(fortyLines(0), catalog, { mode: 'error' });
      if (first.kind !== 'passed') throw new Error(`bench: the 40-line script does not pass the check: ${JSON.stringify(first)}`);
      ctx.log(`warm checks of a 40-line script against ${catalog.length} tools, beside one-call runs…`);
      let round = 1;
      const paced = await interleaved(
        ctx.rounds,
        () => timed(() => checker.check(fortyLines(round++), catalog, { mode: 'error' })),
        () => timed(() => runCode(server, ONE_CALL)),
        100,
      );
      rows.push({
        name: `a warm type check of a 40-line script, ${catalog.length} tools`,
        value: paced.subject,
        unit: 'ms',
        floorName: 'a paced one-call run, end to end',
        floor: paced.floor,
        goal: atMost(0.1),
      });
    } finally {
      await checker.close();
    }

    ctx.log('first checks of a new checker…');
    const firsts: number[] = [];
    for (let i = 0; i < (ctx.quick ? 1 : 3); i++) {
      const fresh = new ScriptChecker({ timeLimitMs: 60_000 });
      firsts.push(await timed(() => fresh.check(fortyLines(i), catalog, { mode: 'error' })));
      await fresh.close();
    }
    const run = await timed(() => runCode(server, ONE_CALL));
    rows.push({
      name: `the first check of a new checker (worker, TypeScript, ${catalog.length} tools' program, warm-up, the check)`,
      value: median(firsts),
      unit: 'ms',
      floorName: 'a one-call run',
      floor: run,
      goal: { text: '≤ 1 s', met: (value) => value <= 1_000 },
    });

    rows.push(await checkerMemory(catalog, ctx));
  } finally {
    await server.close();
  }
  return rows;
}

/** This process's resident memory before a checker and once its worker is idle after checks (collected first when run with --expose-gc). */
async function checkerMemory(catalog: readonly CatalogTool[], ctx: BenchContext): Promise<Row> {
  const collect = (globalThis as { gc?: () => void }).gc;
  collect?.();
  await sleep(200);
  const before = process.memoryUsage().rss;
  const checker = new ScriptChecker({ timeLimitMs: 60_000 });
  try {
    for (let i = 0; i < (ctx.quick ? 2 : 20); i++) await checker.check(fortyLines(i), catalog, { mode: 'error' });
    collect?.();
    await sleep(1_000);
    const after = process.memoryUsage().rss;
    return {
      name: `what a checker adds to the process, idle after checks (${catalog.length} tools)`,
      value: (after - before) / MiB,
      unit: 'MiB',
      floorName: 'the process before it',
      floor: before / MiB,
      goal: { text: '≤ 40 MiB', met: (value) => value <= 40 },
    };
  } finally {
    await checker.close();
  }
}
