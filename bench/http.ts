/**
 * The HTTP mode's figures against stdio's, measured in the same run: codemode-mcp --http in front
 * of the timing upstream, reached with the SDK's Streamable HTTP client.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { PACKAGE_ROOT } from '../src/support/package-root.js';
import { interleaved, sleep, timed } from './measure.js';
import { atMost, type BenchContext, type Row } from './report.js';
import { TIMING_UPSTREAM, runCode, startServer, type Connected } from './server.js';

const BIN = join(PACKAGE_ROOT, 'bin', 'codemode-mcp.js');

export interface HttpInstance {
  readonly url: string;
  readonly port: number;
  readonly pid: number;
  /** A new session: a client connected (initialize done). */
  session(): Promise<Connected>;
  close(): Promise<void>;
}

const ONE_CALL = 'return (await tools.mark({})).content[0].text';

/** After a run takes a pooled child, a replacement is started and ready within this, here. */
const POOL_REFILL_MS = 750;

/**
 * Over HTTP against stdio, rounds alternating in the same run: a paced one-call run on a session
 * with a warm pool, and a new session's initialize plus its first tools/list (over stdio a new
 * session is a new process, whose upstreams start at initialize; over HTTP, a session on a
 * running server).
 */
export async function measureHttp(ctx: BenchContext): Promise<Row[]> {
  ctx.log('one-call run and a new session, stdio and HTTP…');
  const stdio = await startServer(['--pool', '2']);
  const http = await startHttpInstance(['--pool', '2']);
  const session = await http.session();
  try {
    await sleep(POOL_REFILL_MS * 2);
    const run = await interleaved(
      ctx.rounds,
      () => timed(() => runCode(session, ONE_CALL)),
      () => timed(() => runCode(stdio, ONE_CALL)),
      POOL_REFILL_MS,
    );
    const firstAnswer = async (connect: () => Promise<Connected>): Promise<number> => {
      let fresh: Connected | undefined;
      const took = await timed(async () => {
        fresh = await connect();
        await fresh.client.listTools();
      });
      await fresh?.close();
      return took;
    };
    const first = await interleaved(
      ctx.rounds,
      () => firstAnswer(() => http.session()),
      () => firstAnswer(() => startServer(['--pool', '2'])),
      200,
    );
    return [
      {
        name: 'one-call run over HTTP, paced',
        value: run.subject,
        unit: 'ms',
        floorName: 'the same over stdio',
        floor: run.floor,
        goal: atMost(1.5),
      },
      {
        name: 'new session over HTTP: initialize + first tools/list',
        value: first.subject,
        unit: 'ms',
        floorName: 'the same over stdio (a new process)',
        floor: first.floor,
        goal: atMost(1.5),
      },
    ];
  } finally {
    await session.close();
    await http.close();
    await stdio.close();
  }
}

/**
 * codemode-mcp --http on a free loopback port in front of `upstream` (the timing upstream by
 * default; none where `flags` name a --config); resolves once upstreams are up.
 */
export function startHttpInstance(
  flags: readonly string[],
  upstream: readonly string[] = ['--', process.execPath, TIMING_UPSTREAM],
): Promise<HttpInstance> {
  const child = spawn(process.execPath, [BIN, '--http', '127.0.0.1:0', ...flags, ...upstream], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let stderr = '';
    let url: string | undefined;
    child.once('exit', () => reject(new Error(`codemode-mcp --http exited: ${stderr}`)));
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      url ??= /serving MCP over HTTP at (\S+\/mcp)/.exec(stderr)?.[1];
      if (url === undefined || !/upstreams: \S+ ready/.test(stderr)) return;
      const at = url;
      child.stderr.removeAllListeners('data');
      child.stderr.resume();
      resolve({
        url: at,
        port: Number(new URL(at).port),
        pid: child.pid!,
        session: async () => {
          const transport = new StreamableHTTPClientTransport(new URL(at));
          const client = new Client({ name: 'codemode-bench', version: '1.0.0' });
          await client.connect(transport);
          return {
            client,
            pid: child.pid!,
            close: async () => {
              await transport.terminateSession().catch(() => {});
              await client.close();
            },
          };
        },
        close: () =>
          new Promise<void>((done) => {
            child.removeAllListeners('exit');
            child.once('exit', () => done());
            child.kill('SIGTERM');
          }),
      });
    });
  });
}
