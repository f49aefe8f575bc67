/**
 * Load through nginx in front of three instances (bench/nginx.ts, docs/deploy.md's block): N
 * clients at once, each its own principal, each starting M scripts one after another, for each
 * protocol revision in turn: a 2026-07-28 client (no session; its waits and stops routed by
 * Mcp-Param-Script) and a 2025 one (routed by its Mcp-Session-Id). Each script calls the echo
 * tool of a real upstream (server-everything) and sleeps, so its `run` answers `running`; it is
 * then waited on by id to its ending, or (every STOP_EVERY-th) stopped by id. Counted: scripts
 * answered, wrong answers, lost (a call with no answer), requests nginx sent to an instance other
 * than the one their script or session id names, scripts per instance, finished and stopped, and
 * scripts started that the instances' own `list` does not show ended (unaccounted); and each
 * instance's RSS before, at the end, and once its pool is idle again. test/e2e/http-nginx-load
 * runs a small load with driveLoad and checks the same counts.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { Client, StreamableHTTPClientTransport, type CallToolResult } from '@modelcontextprotocol/client';
import { PACKAGE_ROOT } from '../src/support/package-root.js';
import { startHttpInstance, type HttpInstance } from './http.js';
import { IDLE_CHECK_MS, IDLE_COLLECTIONS } from '../src/support/idle-collect.js';
import { memoryOf, now, sleep } from './measure.js';
import { INSTANCES, NGINX, prefixOf, startBehindNginx, type BehindNginx, type Instance, type Routed } from './nginx.js';
import { atMost, type BenchContext, type Row } from './report.js';
import { poolSettled } from './settle.js';

/** The revisions a load runs with: a 2026-07-28 client pinned to it, and a 2025 one (the SDK's default handshake). */
export const REVISIONS = ['2026-07-28', '2025'] as const;
export type Revision = (typeof REVISIONS)[number];

/** Every STOP_EVERY-th script of a client is stopped by id rather than waited on to its end. */
const STOP_EVERY = 5;
/** A waited script sleeps this long after its call, so its run answers `running` after RUN_YIELD_MS. */
const SCRIPT_SLEEP_MS = 200;
const RUN_YIELD_MS = 50;
/** A wait's yield: a script ends long before it, so the wait answers with the ending. */
const WAIT_YIELD_MS = 120_000;

/** The load: `clients` at once, each starting `scripts` one after another, speaking `revision`. */
export interface LoadPlan {
  readonly revision: Revision;
  readonly clients: number;
  readonly scripts: number;
}

/** What a load's clients saw; `misrouted` and `routedChecked` are filled in from nginx's log by checkRouting. */
export interface LoadTally {
  readonly plan: LoadPlan;
  /** Scripts whose run answered with an id (an id is unique per principal and instance, not across principals). */
  readonly started: string[];
  /** Scripts whose ending came back (finished, stopped or wrong). */
  answered: number;
  finished: number;
  stopped: number;
  /** Answers that were not what the script does, each described. */
  readonly wrong: string[];
  /** Calls that got no answer (they threw), each described. */
  readonly lost: string[];
  /** Runs refused (for capacity, say), each described. */
  readonly refused: string[];
  readonly perInstance: Record<Instance, number>;
  /** Scripts started that no instance's `list` shows ended. */
  readonly unaccounted: string[];
  /** The 2025 clients' session ids. */
  readonly sessions: string[];
  /** Requests naming one of this load's scripts or sessions that nginx sent elsewhere, each described. */
  readonly misrouted: string[];
  /** Requests naming one of this load's scripts or sessions. */
  routedChecked: number;
  wallMs: number;
}

interface LoadClient {
  readonly session: string | undefined;
  call(args: Record<string, unknown>): Promise<CallToolResult>;
  close(): Promise<void>;
}

async function connectClient(url: string, token: string, revision: Revision, name: string): Promise<LoadClient> {
  const client = new Client(
    { name, version: '1.0.0' },
    revision === '2026-07-28' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {},
  );
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  // Listed first, the tools' schemas tell the client which argument to mirror in Mcp-Param-Script.
  await client.listTools();
  return {
    session: transport.sessionId,
    call: (args) => client.callTool({ name: 'code_execution', arguments: args }),
    close: async () => {
      if (transport.sessionId !== undefined) await transport.terminateSession();
      await client.close();
    },
  };
}

const textOf = (answer: CallToolResult): string =>
  (answer.content as Array<{ type: string; text?: string }>).map((part) => part.text ?? '').join('\n');
const structuredOf = (answer: CallToolResult) =>
  (answer.structuredContent ?? {}) as { script?: string; status?: string; value?: unknown };

/** Ended scripts in a `list` answer (`<id> finished 1.2 s ago, …`). */
function endedIn(list: CallToolResult): string[] {
  return [...textOf(list).matchAll(/^(\S+) (?:finished|failed|crashed|stopped) /gm)].map((match) => match[1]!);
}

/** One script: run, then wait on it by id to its ending, or stop it by id. */
async function oneScript(client: LoadClient, tag: string, stop: boolean, tally: LoadTally): Promise<string | undefined> {
  const code = `const said = (await tools.echo({ message: "${tag}" })).content[0].text; await sleep(${stop ? 600_000 : SCRIPT_SLEEP_MS}); return said;`;
  let answer: CallToolResult;
  try {
    answer = await client.call({ code, yield_ms: RUN_YIELD_MS });
  } catch (error) {
    tally.lost.push(`run of ${tag}: ${String(error)}`);
    return undefined;
  }
  const started = structuredOf(answer);
  if (started.script === undefined) {
    if (textOf(answer).startsWith('Refused:')) tally.refused.push(`${tag}: ${textOf(answer).slice(0, 200)}`);
    else tally.wrong.push(`run of ${tag}: ${textOf(answer).slice(0, 200)}`);
    return undefined;
  }
  const id = started.script;
  tally.started.push(id);
  tally.perInstance[prefixOf(id)] += 1;
  if (started.status !== 'running') {
    tally.wrong.push(`run of ${tag} (${id}) answered ${started.status}, not running`);
    return id;
  }
  let ending = started;
  try {
    if (stop) ending = structuredOf(await client.call({ action: 'stop', script: id }));
    else {
      while (ending.status === 'running')
        ending = structuredOf(await client.call({ action: 'wait', script: id, yield_ms: WAIT_YIELD_MS }));
    }
  } catch (error) {
    tally.lost.push(`${stop ? 'stop' : 'wait'} of ${id} (${tag}): ${String(error)}`);
    return id;
  }
  tally.answered += 1;
  if (ending.script !== id) tally.wrong.push(`${id} (${tag}): the answer is about ${String(ending.script)}`);
  else if (stop && ending.status === 'stopped') tally.stopped += 1;
  else if (!stop && ending.status === 'finished' && ending.value === `Echo: ${tag}`) tally.finished += 1;
  else tally.wrong.push(`${id} (${tag}): ${String(ending.status)}, value ${JSON.stringify(ending.value)}`);
  return id;
}

/**
 * Runs a load through `url` (nginx), client n authenticating with `tokens[n]`; then asks each
 * instance (`direct`: its own URL) for the scripts it holds, to find any started and never ended.
 */
export async function driveLoad(
  url: string,
  direct: Record<Instance, string>,
  plan: LoadPlan,
  tokens: readonly string[],
): Promise<LoadTally> {
  const tally: LoadTally = {
    plan,
    started: [],
    answered: 0,
    finished: 0,
    stopped: 0,
    wrong: [],
    lost: [],
    refused: [],
    perInstance: { a: 0, b: 0, c: 0 },
    unaccounted: [],
    sessions: [],
    misrouted: [],
    routedChecked: 0,
    wallMs: 0,
  };
  const began = now();
  const clients = await Promise.all(
    Array.from({ length: plan.clients }, (_, n) => connectClient(url, tokens[n]!, plan.revision, `load-${plan.revision}-${n}`)),
  );
  try {
    const startedBy = await Promise.all(
      clients.map(async (client, n) => {
        const ids: string[] = [];
        for (let k = 0; k < plan.scripts; k++) {
          const id = await oneScript(client, `${n}-${k}`, k % STOP_EVERY === STOP_EVERY - 1, tally);
          if (id !== undefined) ids.push(id);
        }
        return ids;
      }),
    );
    tally.wallMs = now() - began;
    for (const [n, client] of clients.entries()) {
      const ended = new Set<string>();
      if (client.session !== undefined) {
        // A 2025 session's scripts are its own, on its instance: its list (routed there) shows them.
        tally.sessions.push(client.session);
        for (const id of endedIn(await client.call({ action: 'list' }))) ended.add(id);
      } else {
        // A 2026-07-28 client's scripts are its principal's, on whichever instance ran each.
        for (const instance of INSTANCES) {
          const there = await connectClient(direct[instance], tokens[n]!, plan.revision, `load-list-${n}`);
          for (const id of endedIn(await there.call({ action: 'list' }))) ended.add(id);
          await there.close();
        }
      }
      tally.unaccounted.push(...startedBy[n]!.filter((id) => !ended.has(id)).map((id) => `${id} (client ${n})`));
    }
  } finally {
    for (const client of clients) await client.close();
  }
  return tally;
}

/**
 * Fills in a load's routing from nginx's log, read once nginx has stopped (every request is in it
 * then): each request naming one of its scripts (Mcp-Param-Script) or sessions (Mcp-Session-Id)
 * must have been answered by the instance the id names, and a session's scripts started there.
 */
export function checkRouting(tally: LoadTally, cluster: Pick<BehindNginx<unknown>, 'routed' | 'answeredBy'>): void {
  const scripts = new Set(tally.started);
  const sessions = new Set(tally.sessions);
  const naming = (request: Routed): string | undefined =>
    sessions.has(request.session) ? request.session : scripts.has(request.script) ? request.script : undefined;
  for (const request of cluster.routed()) {
    const id = naming(request);
    if (id === undefined) continue;
    tally.routedChecked += 1;
    const by = cluster.answeredBy(request);
    if (by !== prefixOf(id)) tally.misrouted.push(`${request.method || 'a request'} naming ${id} answered by ${String(by)}`);
  }
  if (tally.sessions.length > 0) {
    const sessionInstances = new Set(tally.sessions.map(prefixOf));
    for (const id of tally.started) {
      if (!sessionInstances.has(prefixOf(id))) tally.misrouted.push(`script ${id} started where no session of the load is`);
    }
  }
}

const MiB = 1024 * 1024;
/** RSS of each instance's server process, MiB. */
const rssOf = (instances: Record<Instance, HttpInstance>): Record<Instance, number> =>
  Object.fromEntries(INSTANCES.map((id) => [id, (memoryOf(instances[id].pid, 'VmRSS') ?? 0) / MiB])) as Record<Instance, number>;
/**
 * The instances idle again: their pools (the same children, each nearly idle, over a window), and
 * each server's own collections once idle (src/support/idle-collect.ts), at the checks that follow
 * the load's end.
 */
const settled = async (instances: Record<Instance, HttpInstance>, pool: number): Promise<void> => {
  const collected = sleep((IDLE_COLLECTIONS + 1) * IDLE_CHECK_MS);
  await Promise.all(INSTANCES.map((id) => poolSettled(instances[id].pid, pool)));
  await collected;
};

/** Children started ahead on each instance (the default). */
const POOL = 2;
/** Scripts each client's principal may keep ended on an instance: enough for `list` to show every one. */
const ENDED_KEPT = 256;

/** The bench: both revisions in turn through one nginx and three instances; rows per revision. */
export async function measureNginxLoad(ctx: BenchContext): Promise<Row[]> {
  if (NGINX === undefined) {
    ctx.log('nginx-load: nginx is not installed here (apt-get install nginx); skipped');
    return [];
  }
  const clients = ctx.quick ? 2 : 8;
  const scripts = ctx.quick ? 5 : 50;
  ctx.log(`nginx-load: three instances behind nginx, ${clients} clients × ${scripts} scripts, each revision…`);
  const dir = mkdtempSync(join(tmpdir(), 'codemode-bench-nginx-'));
  const config = join(dir, 'servers.json');
  const everything = join(PACKAGE_ROOT, 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js');
  writeFileSync(config, JSON.stringify({ mcpServers: { everything: { command: process.execPath, args: [everything] } } }));
  const tokens = Array.from({ length: clients }, (_, n) => `load-${n}-${randomBytes(12).toString('hex')}`);
  const started: HttpInstance[] = [];
  let cluster: BehindNginx<HttpInstance> | undefined;
  mkdirSync(join(dir, 'nginx'));
  try {
    cluster = await startBehindNginx({
      dir: join(dir, 'nginx'),
      auth: { tokens: Object.fromEntries(tokens.map((token, n) => [`client-${n}`, token])) },
      start: async (_id, flags) => {
        const instance = await startHttpInstance(
          [
            ...flags,
            '--config',
            config,
            '--pool',
            String(POOL),
            '--ended-scripts-kept',
            String(ENDED_KEPT),
            '--drain-grace-ms',
            '0',
          ],
          [],
        );
        started.push(instance);
        return instance;
      },
    });
    const { instances } = cluster;
    const direct = Object.fromEntries(INSTANCES.map((id) => [id, instances[id].url])) as Record<Instance, string>;
    // Quick (CI) checks that the load runs and is routed right; the memory figures need the warm-up
    // and the waits for idle pools, which take longer than the load itself.
    // The warm-up is a load of the same size: the first load leaves a server about 10 MiB above a
    // fresh one (its paths compiled, V8's feedback and caches, kept by later loads too), which is not
    // what a load keeps; the rows compare each load with a warm server, and note the fresh start.
    let fresh: Record<Instance, number> | undefined;
    if (!ctx.quick) {
      await settled(instances, POOL);
      fresh = rssOf(instances);
      await driveLoad(cluster.url, direct, { revision: '2026-07-28', clients, scripts }, tokens);
    }
    const loads: Array<{ tally: LoadTally; rss: Rss | undefined }> = [];
    if (ctx.quick) {
      // Both revisions at once: the same checks in half the time.
      const tallies = await Promise.all(
        REVISIONS.map((revision) => driveLoad(cluster!.url, direct, { revision, clients, scripts }, tokens)),
      );
      loads.push(...tallies.map((tally) => ({ tally, rss: undefined })));
      for (const tally of tallies)
        ctx.log(`nginx-load: ${tally.plan.revision}: ${tally.answered} of ${clients * scripts} answered`);
    }
    for (const revision of ctx.quick ? [] : REVISIONS) {
      await settled(instances, POOL);
      const start = rssOf(instances);
      const tally = await driveLoad(cluster.url, direct, { revision, clients, scripts }, tokens);
      const end = rssOf(instances);
      await settled(instances, POOL);
      loads.push({ tally, rss: { fresh: fresh!, start, end, idle: rssOf(instances) } });
      ctx.log(
        `nginx-load: ${revision}: ${tally.answered} of ${clients * scripts} answered in ${(tally.wallMs / 1000).toFixed(1)} s`,
      );
    }
    await cluster.stopNginx();
    for (const { tally } of loads) checkRouting(tally, cluster);
    return loads.flatMap(({ tally, rss }) => loadRows(tally, rss));
  } finally {
    await cluster?.stopNginx();
    for (const instance of started) await instance.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const none: Row['goal'] = { text: '0', met: (value) => value === 0 };

/** Each instance's RSS (MiB) once started, before a load, at its end, and once idle again. */
type Rss = Record<'fresh' | 'start' | 'end' | 'idle', Record<Instance, number>>;

function loadRows(tally: LoadTally, rss: Rss | undefined): Row[] {
  const { revision, clients, scripts } = tally.plan;
  const planned = clients * scripts;
  const label = `nginx-load, ${revision} (${clients} clients × ${scripts} scripts)`;
  const first = (list: readonly string[]) => (list.length === 0 ? undefined : `first: ${list[0]}`);
  const perInstance = INSTANCES.map((id) => `${id} ${tally.perInstance[id]}`).join(' / ');
  const rows: Row[] = [
    {
      name: `${label}: scripts answered`,
      value: tally.answered,
      unit: 'scripts',
      floorName: 'scripts run',
      floor: planned,
      goal: { text: 'all', met: (value, floor) => value === floor },
      note:
        `${tally.finished} finished, ${tally.stopped} stopped; per instance ${perInstance}; ` +
        `${(tally.wallMs / 1000).toFixed(1)} s`,
    },
    {
      name: `${label}: runs refused`,
      value: tally.refused.length,
      unit: 'scripts',
      floorName: 'scripts run',
      floor: planned,
      goal: none,
    },
    {
      name: `${label}: wrong answers`,
      value: tally.wrong.length,
      unit: 'scripts',
      floorName: 'scripts run',
      floor: planned,
      goal: none,
    },
    {
      name: `${label}: lost (no answer)`,
      value: tally.lost.length,
      unit: 'scripts',
      floorName: 'scripts run',
      floor: planned,
      goal: none,
    },
    {
      name: `${label}: requests answered by another instance than their id names`,
      value: tally.misrouted.length,
      unit: 'requests',
      floorName: 'requests naming a script or session',
      floor: tally.routedChecked,
      goal: none,
    },
    {
      name: `${label}: unaccounted (started, not ended in its instance's list)`,
      value: tally.unaccounted.length,
      unit: 'scripts',
      floorName: 'scripts started',
      floor: tally.started.length,
      goal: none,
    },
    ...INSTANCES.filter(() => rss !== undefined).map((id): Row => ({
      name: `${label}: instance ${id} RSS once idle after`,
      value: rss!.idle[id],
      unit: 'MiB',
      floorName: 'its RSS before',
      floor: rss!.start[id],
      goal: atMost(1.1),
      note: `${rss!.end[id].toFixed(1)} MiB at the end; ${rss!.fresh[id].toFixed(1)} MiB fresh, before the warm-up load`,
    })),
  ];
  // What went wrong, where anything did, said beside the figure.
  return rows.map((row, i) => {
    const detail = [
      undefined,
      first(tally.refused),
      first(tally.wrong),
      first(tally.lost),
      first(tally.misrouted),
      first(tally.unaccounted),
    ][i];
    return detail === undefined ? row : { ...row, note: row.note === undefined ? detail : `${row.note}; ${detail}` };
  });
}
