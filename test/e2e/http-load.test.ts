/**
 * Load through one HTTP server: 20 sessions, each running a script that makes 50 calls at once
 * to a real upstream. Every answer must be right, every script child gone once the sessions
 * end, the server's own collection once idle, and its heap (after a collection) back within 10% of
 * what it was before.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { connectHttp, rawRequest, startHttpServer, type HttpServer } from '../support/http-server.js';
import { eventually, nodeEntry, publishedEntry, valueOf, writeConfig } from '../support/mcp-client.js';
import { makeTempDir } from '../support/temp-dirs.js';
import { until } from '../support/waiting.js';

const SESSIONS = 20;
const CALLS = 50;
let server: HttpServer | undefined;

afterEach(async () => {
  const stopped = await server?.stop();
  server = undefined;
  expect(stopped?.left ?? []).toEqual([]);
});

/**
 * The bytes the server's heap keeps after a full collection: the sum of the objects' own sizes in a
 * heap snapshot it writes on SIGUSR2 into `dir`.
 */
async function heapKept(target: HttpServer, dir: string): Promise<number> {
  const known = new Set(readdirSync(dir));
  process.kill(target.pid, 'SIGUSR2');
  const file = await until('the heap snapshot', () => readdirSync(dir).find((name) => !known.has(name)));
  // The snapshot is written on the server's main thread: once it answers a request, the file is whole.
  await health(target.port);
  const { snapshot, nodes } = JSON.parse(readFileSync(join(dir, file), 'utf8')) as {
    snapshot: { meta: { node_fields: string[] } };
    nodes: number[];
  };
  const fields = snapshot.meta.node_fields.length;
  const selfSize = snapshot.meta.node_fields.indexOf('self_size');
  let total = 0;
  for (let i = selfSize; i < nodes.length; i += fields) total += nodes[i]!;
  return total;
}

async function health(port: number): Promise<{ sessions: number; scriptChildren: { running: number; pooled: number } }> {
  return (await rawRequest(port, { method: 'GET', path: '/healthz', headers: { Host: 'localhost' } })).json() as never;
}

/** The heap before and after (MiB) of each idle collection the server has logged (at debug). */
function idleCollections(target: HttpServer): [number, number][] {
  return [...target.stderr().matchAll(/idle: full garbage collection in \S+ ms, heap (\S+) -> (\S+) MiB/g)].map((m) => [
    Number(m[1]),
    Number(m[2]),
  ]);
}

/** One session: a script making CALLS calls at once, each answer checked; then the session ends (DELETE). */
async function oneSession(url: string, n: number): Promise<void> {
  const client = await connectHttp(url, { name: `load-${n}` });
  try {
    const code = `return (await Promise.all(Array.from({ length: ${CALLS} }, (_, i) => tools["get-sum"]({ a: i, b: ${n} })))).map((r) => r.content[0].text)`;
    const answers = valueOf(await client.run({ code, yield_ms: 120_000 })) as string[];
    expect(answers).toHaveLength(CALLS);
    answers.forEach((answer, i) => expect(answer).toContain(`is ${i + n}`));
  } finally {
    await client.close();
  }
}

/** Once no session and no running script is left: the state each round must come back to. */
async function idle(port: number): Promise<void> {
  // No script's process is left (each exits once its script has ended); what remains is the warm pool.
  await eventually(async () => expect((await health(port)).scriptChildren.running).toBe(0));
  // Each client's DELETE has been answered; the session's end (its scripts stopped) may finish a moment later.
  await eventually(async () => expect((await health(port)).sessions).toBe(0));
}

test(
  `${SESSIONS} sessions each running ${CALLS} calls at once: every answer right, no script child left, garbage collected once idle, heap back within 10%`,
  { timeout: 180_000 },
  async () => {
    const config = writeConfig({ everything: nodeEntry(publishedEntry('server-everything')) });
    // The server writes a heap snapshot on SIGUSR2: V8 collects the garbage first, so the snapshot's
    // size is what the server keeps, however loaded the machine (RSS is not: it follows when the
    // collector last ran).
    const snapshots = makeTempDir('load-heap');
    server = await startHttpServer(
      ['--config', config, '--max-script-children', String(SESSIONS + 2), '--pool', '2', '--log-level', 'debug'],
      {
        nodeArgs: ['--heapsnapshot-signal=SIGUSR2', `--diagnostic-dir=${snapshots}`],
      },
    );
    await server.logged(/upstreams: everything ready/);
    // Two rounds of the same size warm the server (code paths compiled, caches filled) before its
    // heap is read: what a third round leaves behind is what leaks.
    for (const round of [1, 2]) {
      await Promise.all(Array.from({ length: SESSIONS }, (_, n) => oneSession(server!.url, 100 * round + n)));
    }
    await idle(server.port);
    const before = await heapKept(server, snapshots);
    const collectionsBefore = idleCollections(server).length;
    await Promise.all(Array.from({ length: SESSIONS }, (_, n) => oneSession(server!.url, n)));
    await idle(server.port);
    // Idle after the load, the server collects its garbage by itself (src/support/idle-collect.ts).
    const [heapBefore, heapAfter] = await until('the idle collection after the third round', () =>
      idleCollections(server!).at(collectionsBefore),
    );
    expect(heapAfter).toBeLessThan(heapBefore);
    const after = await heapKept(server, snapshots);
    // The burst grew the pool; once idle for POOL_SHRINK_AFTER_MS it shrinks back to --pool.
    await eventually(async () => expect((await health(server!.port)).scriptChildren.pooled).toBeLessThanOrEqual(2));
    process.stderr.write(
      `load: the server's heap after collection ${(before / 2 ** 20).toFixed(2)} MiB before the third round, ${(after / 2 ** 20).toFixed(2)} MiB after\n`,
    );
    expect(after).toBeLessThanOrEqual(before * 1.1);
  },
);
