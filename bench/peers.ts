/**
 * codemode-mcp beside a peer, in one run: UTCP code mode (@utcp/code-mode, each script in a new
 * isolated-vm isolate inside the server's process), served over MCP by bench/peers/utcp-code-mode.mjs
 * in front of the same timing upstream, driven by the same SDK client. isolated-vm 6 needs Node 22
 * or later, so the peer runs on Node PEER_NODE (npm's `node` package, fetched by npx); ours runs
 * on the Node running the bench. The peer's packages are installed apart, in bench/peers, from
 * its lockfile, on the first run (isolated-vm's tarball carries its prebuilt binaries, so no
 * install script runs). Its own section in RESULTS.md; not in --quick (CI), since it fetches from
 * npm. The other peer the capacity issue named, my-cool-proxy, is not published on npm.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ENGINE_MAIN } from '../src/script-host/engine-path.js';
import { PACKAGE_ROOT } from '../src/support/package-root.js';
import { descendantsRunning, interleaved, sleep, timed } from './measure.js';
import { memoryOfAll, treeCpuMs } from './processes.js';
import type { BenchContext, Row } from './report.js';
import { connect, runCode, runScript, startServer, TIMING_UPSTREAM, type Connected } from './server.js';
import { poolSettled } from './settle.js';

/** The Node the peer runs on, exactly, from npm's `node` package. */
const PEER_NODE = 'node@24.9.0';
const PEERS = join(PACKAGE_ROOT, 'bench', 'peers');
const OURS = 'return (await tools.mark({})).content[0].text';
/** The same call in the peer's terms: the upstream is its manual `up`, the tool `up.timing_mark`. */
const THEIRS = 'return up.timing_mark({})';
const AT_ONCE = 16;
/** The idle time before a burst: past our pool's shrink (POOL_SHRINK_AFTER_MS, 10 s), as in bench/reuse.ts. */
const IDLE_MS = 15_000;
/** One-call scripts run in turn for the CPU figure (a child's start, after childMaxScripts, counted if one falls in them). */
const CPU_SCRIPTS = 200;

export async function measurePeers(ctx: BenchContext): Promise<Row[]> {
  if (ctx.quick) {
    ctx.log('peers: not in --quick (it fetches Node and the peer from npm); `npm run bench -- peers` measures it');
    return [];
  }
  const node = peerNode(ctx);
  installPeer(ctx);
  const ours = await startServer([]);
  const peer = await connect(
    node,
    [join(PEERS, 'utcp-code-mode.mjs')],
    { UPSTREAM: JSON.stringify([process.execPath, TIMING_UPSTREAM]) },
    'inherit',
  );
  try {
    await poolSettled(ours.pid, 2);
    for (let run = 0; run < 4; run++) {
      await runCode(ours, OURS);
      await runPeer(peer, THEIRS);
    }
    ctx.log(`peers: a one-call run at a time, ${ctx.rounds} rounds…`);
    // Each run after the same pause: until our pool is still (a refill after our last run done).
    const paced = await interleaved(
      ctx.rounds,
      async () => {
        await poolSettled(ours.pid, 2);
        return timed(() => runCode(ours, OURS));
      },
      async () => {
        await poolSettled(ours.pid, 2);
        return timed(() => runPeer(peer, THEIRS));
      },
    );
    ctx.log(`peers: CPU of ${CPU_SCRIPTS} one-call scripts in turn…`);
    const cpu = {
      // Our children that exited count once reaped, in the server's cutime: the pool must be still.
      ours: await cpuPerScript(
        ours,
        () => runCode(ours, OURS),
        () => poolSettled(ours.pid, 1),
      ),
      peer: await cpuPerScript(
        peer,
        () => runPeer(peer, THEIRS),
        async () => {},
      ),
    };
    ctx.log(`peers: ${AT_ONCE} one-call runs at once after ${IDLE_MS / 1000} s idle, 3 rounds…`);
    let refused = 0;
    const bursts = await interleaved(
      3,
      async () => {
        await sleep(IDLE_MS);
        await poolSettled(ours.pid, 2);
        return timed(async () => {
          const outcomes = await Promise.all(Array.from({ length: AT_ONCE }, () => runScript(ours, OURS)));
          refused += outcomes.filter((outcome) => 'refused' in outcome).length;
        });
      },
      async () => {
        await sleep(IDLE_MS);
        await poolSettled(ours.pid, 2);
        return timed(() => Promise.all(Array.from({ length: AT_ONCE }, () => runPeer(peer, THEIRS))));
      },
    );
    await sleep(IDLE_MS);
    await poolSettled(ours.pid, 2);
    const resting = {
      ours: memoryOfAll([ours.pid, ...descendantsRunning(ours.pid, ENGINE_MAIN)]),
      peer: memoryOfAll([peer.pid]),
    };
    const peerName = `UTCP code mode ${peerVersion('@utcp/code-mode')} (isolated-vm ${peerVersion('isolated-vm')}, Node ${PEER_NODE.slice('node@'.length)})`;
    return [
      {
        name: 'a one-call run, one at a time after a pause, over stdio',
        value: paced.subject,
        unit: 'ms',
        floorName: peerName,
        floor: paced.floor,
        goal: { text: '≤ 0.8 ×', met: (value, floor) => value <= 0.8 * floor },
      },
      {
        name: `CPU per one-call script, ${CPU_SCRIPTS} in turn (server, upstream, and our script processes)`,
        value: cpu.ours,
        unit: 'ms',
        floorName: peerName,
        floor: cpu.peer,
      },
      {
        name: `${AT_ONCE} one-call runs at once after ${IDLE_MS / 1000} s idle`,
        value: bursts.subject,
        unit: 'ms',
        floorName: peerName,
        floor: bursts.floor,
        note: `${refused} of ${3 * AT_ONCE} of ours refused; ours ${(bursts.subject / paced.subject).toFixed(1)} × its run alone, the peer's ${(bursts.floor / paced.floor).toFixed(1)} ×`,
      },
      {
        name: 'memory at rest after the bursts: our server and its pool, the peer server (the upstream in neither)',
        value: resting.ours.once,
        unit: 'MiB',
        floorName: peerName,
        floor: resting.peer.once,
        note: `RSS summed: ours ${resting.ours.rssSum.toFixed(1)} MiB, the peer's ${resting.peer.rssSum.toFixed(1)} MiB`,
      },
    ];
  } finally {
    await Promise.all([ours.close(), peer.close()]);
  }
}

/** The peer's Node binary: npx fetches npm's `node` package once, then finds it in its cache. */
function peerNode(ctx: BenchContext): string {
  ctx.log(`peers: ${PEER_NODE} from npm (npx)…`);
  return execFileSync('npx', ['-y', '-p', PEER_NODE, '-c', 'node -p process.execPath'], { encoding: 'utf8' }).trim();
}

/** `npm ci` in bench/peers, under the peer's Node, when its lockfile is newer than what is installed. */
function installPeer(ctx: BenchContext): void {
  const installed = join(PEERS, 'node_modules', '.package-lock.json');
  if (existsSync(installed) && statSync(installed).mtimeMs >= statSync(join(PEERS, 'package-lock.json')).mtimeMs) return;
  ctx.log('peers: installing bench/peers from its lockfile…');
  execFileSync('npx', ['-y', '-p', PEER_NODE, '-c', 'npm ci --ignore-scripts --no-audit --no-fund'], {
    cwd: PEERS,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  if (!existsSync(join(PEERS, 'node_modules', 'isolated-vm'))) throw new Error(`npm ci in ${PEERS} left no isolated-vm`);
}

/** The version of a package installed in bench/peers. */
function peerVersion(name: string): string {
  return (JSON.parse(readFileSync(join(PEERS, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;
}

/** A call_tool_chain that must succeed; its text. */
async function runPeer(peer: Connected, code: string): Promise<string> {
  const result = await peer.client.callTool({ name: 'call_tool_chain', arguments: { code } });
  const [first] = result.content as Array<{ type: string; text?: string }>;
  if (result.isError === true) throw new Error(`the peer's script failed: ${first?.text ?? ''}`);
  return first?.text ?? '';
}

/** CPU per script of CPU_SCRIPTS runs in turn, of the server and everything under it, read once `settled`. */
async function cpuPerScript(server: Connected, run: () => Promise<unknown>, settled: () => Promise<void>): Promise<number> {
  const before = treeCpuMs(server.pid);
  for (let script = 0; script < CPU_SCRIPTS; script++) await run();
  await settled();
  return (treeCpuMs(server.pid) - before) / CPU_SCRIPTS;
}
