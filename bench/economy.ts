/**
 * The model's economy: for multi-step tasks over real upstreams (server-filesystem over a
 * generated directory, server-memory, server-everything), the bytes that pass through a model's
 * context when it calls the tools directly, and when it writes one script in code mode.
 *
 *   direct    = the upstreams' tools/list + every call's arguments and full result
 *   code mode = code_execution's tools/list + every script + every answer's content, discovery
 *               round trips included (a describe() of each tool whose arguments the description
 *               does not give)
 *
 * Each conversation is one task, so each task pays its tool definitions once. Every answer is
 * checked against ground truth computed from the generated directory: 8 notes, 6 Markdown
 * chapters of 200-400 lines, 3 CSV files of 1,000 rows, 12 source files of 0.5-20 KB. `node dist/bench/economy.js`
 * prints a Markdown table (bench/ECONOMY.md keeps the last run).
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { PACKAGE_ROOT } from '../src/support/package-root.js';

const BIN = join(PACKAGE_ROOT, 'bin', 'codemode-mcp.js');
const entry = (pkg: string): string => join(PACKAGE_ROOT, 'node_modules', '@modelcontextprotocol', pkg, 'dist', 'index.js');
const bytes = (value: unknown): number => Buffer.byteLength(typeof value === 'string' ? value : JSON.stringify(value), 'utf8');

// ---- the generated directory, and what is true of it ----

const root = mkdtempSync(join(tmpdir(), 'codemode-economy-'));
const project = join(root, 'project');

/** A deterministic pseudo-random sequence, so every run sees the same files. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

function generate(): void {
  const next = random(42);
  const words = ['alpha', 'beta', 'gamma', 'delta', 'budget', 'release', 'meeting', 'design', 'review', 'invoice'];
  const pick = (): string => words[Math.floor(next() * words.length)]!;
  for (const folder of ['notes', 'docs', 'data', 'src/api', 'src/ui']) mkdirSync(join(project, folder), { recursive: true });
  for (let i = 1; i <= 8; i++) {
    const lines = [
      `Note ${i}: ${pick()} and ${pick()}`,
      ...Array.from({ length: 5 + Math.floor(next() * 15) }, () => `${pick()} ${pick()} ${pick()}.`),
    ];
    writeFileSync(join(project, 'notes', `note-${i}.txt`), `${lines.join('\n')}\n`);
  }
  for (let i = 1; i <= 6; i++) {
    const lines = Array.from({ length: 200 + Math.floor(next() * 200) }, (_, n) =>
      next() < 0.08 ? `TODO: ${pick()} ${n}` : `${pick()} ${pick()} ${pick()} ${pick()} ${pick()}.`,
    );
    writeFileSync(join(project, 'docs', `chapter-${i}.md`), `# Chapter ${i}\n\n${lines.join('\n')}\n`);
  }
  for (let i = 1; i <= 3; i++) {
    const rows = Array.from({ length: 1_000 }, (_, n) => `${i * 1000 + n},${Math.floor(next() * 10_000) / 100}`);
    writeFileSync(join(project, 'data', `sales-${i}.csv`), `id,amount\n${rows.join('\n')}\n`);
  }
  for (const folder of ['src/api', 'src/ui']) {
    for (let i = 1; i <= 6; i++) {
      const size = 500 + Math.floor(next() * 20_000);
      writeFileSync(join(project, folder, `module-${i}.js`), `// ${folder}/module-${i}\n${'x'.repeat(size)}\n`);
    }
  }
}

const truth = {
  largest: (): { file: string; bytes: number } => {
    const files = ['src/api', 'src/ui'].flatMap((folder) =>
      readdirSync(join(project, folder)).map((name) => ({
        file: `${folder}/${name}`,
        bytes: statSync(join(project, folder, name)).size,
      })),
    );
    return files.sort((a, b) => b.bytes - a.bytes)[0]!;
  },
  todos: (): number =>
    readdirSync(join(project, 'docs')).reduce(
      (n, name) =>
        n +
        readFileSync(join(project, 'docs', name), 'utf8')
          .split('\n')
          .filter((l) => l.startsWith('TODO')).length,
      0,
    ),
  csvTotal: (): number =>
    Math.round(
      readdirSync(join(project, 'data')).reduce(
        (sum, name) =>
          sum +
          readFileSync(join(project, 'data', name), 'utf8')
            .trim()
            .split('\n')
            .slice(1)
            .reduce((s, row) => s + Number(row.split(',')[1]), 0),
        0,
      ) * 100,
    ) / 100,
  notes: (): string[] => readdirSync(join(project, 'notes')).sort(),
  notesMentioning: (word: string): string[] =>
    readdirSync(join(project, 'notes'))
      .filter((name) =>
        readFileSync(join(project, 'notes', name), 'utf8')
          .split('\n')[0]!
          .includes(word),
      )
      .sort(),
  sums: (): number[] => Array.from({ length: 10 }, (_, i) => 2 * i + 1 + (2 * i + 2)),
};

// ---- connections ----

interface Connected {
  readonly client: Client;
  close(): Promise<void>;
}

async function connect(args: string[], env: Record<string, string> = {}): Promise<Connected> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args,
    env: { PATH: process.env.PATH ?? '', ...env },
    stderr: 'ignore',
  });
  const client = new Client({ name: 'economy-bench', version: '1.0.0' });
  await client.connect(transport);
  return { client, close: () => client.close() };
}

// ---- the ledger ----

interface Ledger {
  definitions: number;
  modelWrote: number;
  resultsRead: number;
  roundTrips: number;
  discovery: number;
}

const emptyLedger = (definitions: number): Ledger => ({
  definitions,
  modelWrote: 0,
  resultsRead: 0,
  roundTrips: 0,
  discovery: 0,
});
const total = (l: Ledger): number => l.definitions + l.modelWrote + l.resultsRead;

/** A direct call as a model makes it: its arguments written, its whole result read. */
async function direct(ledger: Ledger, server: Connected, name: string, args: Record<string, unknown>): Promise<string> {
  const result = await server.client.callTool({ name, arguments: args });
  ledger.modelWrote += bytes({ name, arguments: args });
  ledger.resultsRead += bytes(result.content) + (result.structuredContent === undefined ? 0 : bytes(result.structuredContent));
  ledger.roundTrips += 1;
  return (result.content as Array<{ type: string; text?: string }>).map((block) => block.text ?? '').join('\n');
}

/** A code_execution call: the script written, the answer's content read; its value returned. */
async function codeMode(ledger: Ledger, server: Connected, code: string, discovery = false): Promise<unknown> {
  const result = await server.client.callTool({ name: 'code_execution', arguments: { code } });
  ledger.modelWrote += bytes({ name: 'code_execution', arguments: { code } });
  ledger.resultsRead += bytes(result.content);
  ledger.roundTrips += 1;
  if (discovery) ledger.discovery += 1;
  const text = (result.content as Array<{ type: string; text?: string }>)[0]?.text ?? '';
  if (!text.includes(' finished\n')) throw new Error(`script did not finish: ${text.slice(0, 400)}`);
  const line = text.split('\n').find((candidate) => candidate.startsWith('value: '));
  return line === undefined ? undefined : (JSON.parse(line.slice('value: '.length)) as unknown);
}

interface Task {
  readonly name: string;
  readonly direct: (ledger: Ledger, upstreams: Record<'files' | 'memory' | 'everything', Connected>) => Promise<unknown>;
  /** The tools whose arguments the model looks up first with describe(), in one discovery script. */
  readonly describes: readonly string[];
  readonly code: string;
  readonly truth: () => unknown;
}

const P = (path: string): string => join(project, path);

const TASKS: Task[] = [
  {
    name: 'largest file under src/, and its size',
    direct: async (l, u) => {
      const listings = await Promise.all(
        ['src/api', 'src/ui'].map(
          async (folder) => [folder, await direct(l, u.files, 'list_directory_with_sizes', { path: P(folder) })] as const,
        ),
      );
      await direct(l, u.files, 'list_directory', { path: P('src') });
      const files = listings.flatMap(([folder, text]) =>
        [...text.matchAll(/\[FILE\] (\S+)\s+([\d.]+) (B|KB)/g)].map((m) => ({
          file: `${folder}/${m[1]}`,
          kb: Number(m[2]) * (m[3] === 'KB' ? 1024 : 1),
        })),
      );
      const best = files.sort((a, b) => b.kb - a.kb)[0]!;
      const info = await direct(l, u.files, 'get_file_info', { path: P(best.file) });
      return { file: best.file, bytes: Number(/size: (\d+)/.exec(info)![1]) };
    },
    describes: [],
    code: `const files = [];
for (const folder of ["src/api", "src/ui"]) {
  const listing = (await tools["files__list_directory"]({ path: ${JSON.stringify(project)} + "/" + folder })).content[0].text;
  for (const line of listing.split("\\n")) if (line.startsWith("[FILE] ")) files.push(folder + "/" + line.slice(7));
}
const sized = await Promise.all(files.map(async (file) => {
  const info = (await tools["files__get_file_info"]({ path: ${JSON.stringify(project)} + "/" + file })).content[0].text;
  return { file, bytes: Number(/size: (\\d+)/.exec(info)[1]) };
}));
return sized.sort((a, b) => b.bytes - a.bytes)[0];`,
    truth: truth.largest,
  },
  {
    name: 'TODO lines in docs/*.md',
    direct: async (l, u) => {
      await direct(l, u.files, 'list_directory', { path: P('docs') });
      const names = readdirSync(P('docs'));
      const text = await direct(l, u.files, 'read_multiple_files', { paths: names.map((n) => P(`docs/${n}`)) });
      return text.split('\n').filter((line) => line.startsWith('TODO')).length;
    },
    describes: ['files__read_multiple_files'],
    code: `const dir = ${JSON.stringify(P('docs'))};
const names = (await tools["files__list_directory"]({ path: dir })).content[0].text.split("\\n").filter((l) => l.endsWith(".md")).map((l) => l.slice(7));
const texts = await Promise.all(names.map(async (n) => (await tools["files__read_text_file"]({ path: dir + "/" + n })).content[0].text));
return texts.reduce((n, t) => n + t.split("\\n").filter((line) => line.startsWith("TODO")).length, 0);`,
    truth: truth.todos,
  },
  {
    name: 'total of the amount column across data/*.csv',
    direct: async (l, u) => {
      await direct(l, u.files, 'list_directory', { path: P('data') });
      const text = await direct(l, u.files, 'read_multiple_files', { paths: readdirSync(P('data')).map((n) => P(`data/${n}`)) });
      const sum = [...text.matchAll(/^\d+,([\d.]+)$/gm)].reduce((s, m) => s + Number(m[1]), 0);
      return Math.round(sum * 100) / 100;
    },
    describes: [],
    code: `const dir = ${JSON.stringify(P('data'))};
const names = (await tools["files__list_directory"]({ path: dir })).content[0].text.split("\\n").filter((l) => l.endsWith(".csv")).map((l) => l.slice(7));
let sum = 0;
for (const n of names) {
  const rows = (await tools["files__read_text_file"]({ path: dir + "/" + n })).content[0].text.trim().split("\\n").slice(1);
  for (const row of rows) sum += Number(row.split(",")[1]);
}
return Math.round(sum * 100) / 100;`,
    truth: truth.csvTotal,
  },
  {
    name: 'file every note in memory, then count the entities',
    direct: async (l, u) => {
      await direct(l, u.files, 'list_directory', { path: P('notes') });
      const names = readdirSync(P('notes')).sort();
      const text = await direct(l, u.files, 'read_multiple_files', { paths: names.map((n) => P(`notes/${n}`)) });
      const firstLines = names.map((n) => text.split('\n')[text.split('\n').findIndex((line) => line.endsWith(`${n}:`)) + 1]!);
      await direct(l, u.memory, 'create_entities', {
        entities: names.map((name, i) => ({ name, entityType: 'note', observations: [firstLines[i]] })),
      });
      const graph = await direct(l, u.memory, 'read_graph', {});
      return (JSON.parse(graph) as { entities: Array<{ name: string }> }).entities.map((e) => e.name).sort();
    },
    describes: ['memory__create_entities'],
    code: `const dir = ${JSON.stringify(P('notes'))};
const names = (await tools["files__list_directory"]({ path: dir })).content[0].text.split("\\n").filter((l) => l.endsWith(".txt")).map((l) => l.slice(7));
const notes = await Promise.all(names.map(async (name) => ({ name, first: (await tools["files__read_text_file"]({ path: dir + "/" + name, head: 1 })).content[0].text.trim() })));
await tools["memory__create_entities"]({ entities: notes.map((n) => ({ name: n.name, entityType: "note", observations: [n.first] })) });
const graph = await tools["memory__read_graph"]({});
return graph.structuredContent.entities.map((e) => e.name).sort();`,
    truth: truth.notes,
  },
  {
    name: 'notes in memory whose first line mentions "alpha"',
    direct: async (l, u) => {
      const found = await direct(l, u.memory, 'search_nodes', { query: 'alpha' });
      return (JSON.parse(found) as { entities: Array<{ name: string }> }).entities.map((e) => e.name).sort();
    },
    describes: ['memory__search_nodes'],
    code: `const found = await tools["memory__search_nodes"]({ query: "alpha" });
return found.structuredContent.entities.map((e) => e.name).sort();`,
    truth: () => truth.notesMentioning('alpha'),
  },
  {
    name: 'ten sums with get-sum: (1,2), (3,4) … (19,20)',
    direct: async (l, u) => {
      const sums: number[] = [];
      for (let i = 0; i < 10; i++) {
        const text = await direct(l, u.everything, 'get-sum', { a: 2 * i + 1, b: 2 * i + 2 });
        sums.push(Number(/is (\d+)/.exec(text)![1]));
      }
      return sums;
    },
    describes: ['everything__get-sum'],
    code: `const results = await Promise.all(Array.from({ length: 10 }, (_, i) => tools["everything__get-sum"]({ a: 2 * i + 1, b: 2 * i + 2 })));
return results.map((r) => Number(/is (\\d+)/.exec(r.content[0].text)[1]));`,
    truth: truth.sums,
  },
];

/** A total over every task with the definitions counted once instead of once per task. */
function oneConversation(sum: number, definitions: number): number {
  return sum - (TASKS.length - 1) * definitions;
}

async function main(): Promise<void> {
  generate();
  const memoryDirect = join(root, 'memory-direct.jsonl');
  const memoryCode = join(root, 'memory-code.jsonl');
  const upstreams = {
    files: await connect([entry('server-filesystem'), project]),
    memory: await connect([entry('server-memory')], { MEMORY_FILE_PATH: memoryDirect }),
    everything: await connect([entry('server-everything'), 'stdio']),
  };
  const config = join(root, 'servers.json');
  writeFileSync(
    config,
    JSON.stringify({
      mcpServers: {
        files: { command: process.execPath, args: [entry('server-filesystem'), project] },
        memory: { command: process.execPath, args: [entry('server-memory')], env: { MEMORY_FILE_PATH: memoryCode } },
        everything: { command: process.execPath, args: [entry('server-everything'), 'stdio'] },
      },
    }),
  );
  const codemode = await connect([BIN, '--config', config]);
  try {
    const directTools = (await Promise.all(Object.values(upstreams).map(async (u) => (await u.client.listTools()).tools))).flat();
    const codeTools = (await codemode.client.listTools()).tools;
    const rows: string[] = [];
    let directSum = 0;
    let codeSum = 0;
    for (const task of TASKS) {
      const expected = task.truth();
      const d = emptyLedger(bytes(directTools));
      const directAnswer = await task.direct(d, upstreams);
      const c = emptyLedger(bytes(codeTools));
      if (task.describes.length > 0) {
        await codeMode(
          c,
          codemode,
          task.describes.map((name) => `console.log(describe(${JSON.stringify(name)}));`).join('\n'),
          true,
        );
      }
      const codeAnswer = await codeMode(c, codemode, task.code);
      const ok =
        JSON.stringify(directAnswer) === JSON.stringify(expected) && JSON.stringify(codeAnswer) === JSON.stringify(expected);
      if (!ok)
        throw new Error(
          `${task.name}: expected ${JSON.stringify(expected)}, direct ${JSON.stringify(directAnswer)}, code mode ${JSON.stringify(codeAnswer)}`,
        );
      directSum += total(d);
      codeSum += total(c);
      rows.push(
        `| ${task.name} | ${d.roundTrips} | ${total(d).toLocaleString('en')} | ${c.roundTrips} (${c.discovery} discovery) | ${total(c).toLocaleString('en')} | ${((100 * total(c)) / total(d)).toFixed(1)}% | yes |`,
      );
      process.stderr.write(`${rows.at(-1)}\n`);
    }
    process.stdout.write(
      [
        `Tool definitions: direct ${bytes(directTools).toLocaleString('en')} bytes (${directTools.length} tools from 3 upstreams); code mode ${bytes(codeTools).toLocaleString('en')} bytes (code_execution). Each task is a conversation of its own and pays its definitions once.`,
        '',
        '| task | direct calls | direct bytes | code-mode calls | code-mode bytes | code / direct | answer right |',
        '|---|---|---|---|---|---|---|',
        ...rows,
        `| **total** | | **${directSum.toLocaleString('en')}** | | **${codeSum.toLocaleString('en')}** | **${((100 * codeSum) / directSum).toFixed(1)}%** | |`,
        '',
        `The same six tasks in one conversation, paying the definitions once: direct ${oneConversation(directSum, bytes(directTools)).toLocaleString('en')} bytes, code mode ${oneConversation(codeSum, bytes(codeTools)).toLocaleString('en')} bytes, ${((100 * oneConversation(codeSum, bytes(codeTools))) / oneConversation(directSum, bytes(directTools))).toFixed(1)}%.`,
        '',
      ].join('\n'),
    );
  } finally {
    await codemode.close();
    await Promise.all(Object.values(upstreams).map((u) => u.close()));
    rmSync(root, { recursive: true, force: true });
  }
}

await main();
