/** Upstream entries and small readers shared by the upstream tests. */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { afterEach, expect } from 'vitest';
import type { UpstreamHub } from '../../src/upstream/hub.js';
import type { StdioUpstreamSpec, ToolPolicy } from '../../src/upstream/spec.js';
import { childPidsOf } from '../support/processes.js';
import { upstreamFixture } from '../support/fixture-bundles.js';
import { shows, type Log } from '../../src/support/log.js';
import { until as waitUntil } from '../support/waiting.js';

const packageEntry = (pkg: string): string =>
  fileURLToPath(new URL(`../../node_modules/@modelcontextprotocol/${pkg}/dist/index.js`, import.meta.url));

export function fixture(
  name: string,
  file: string,
  options: { args?: string[]; env?: Record<string, string>; policy?: ToolPolicy; cwd?: string } = {},
): StdioUpstreamSpec {
  return {
    name,
    transport: 'stdio',
    command: process.execPath,
    args: [upstreamFixture(file), ...(options.args ?? [])],
    env: options.env ?? {},
    policy: options.policy ?? {},
    ...(options.cwd !== undefined ? { cwd: options.cwd } : {}),
  };
}

/** An npm-published reference server, started the way its bin would be. */
export function published(
  name: string,
  pkg: 'server-everything' | 'server-memory' | 'server-filesystem',
  args: string[] = [],
  env: Record<string, string> = {},
): StdioUpstreamSpec {
  return { name, transport: 'stdio', command: process.execPath, args: [packageEntry(pkg), ...args], env, policy: {} };
}

export const everythingEntry = packageEntry('server-everything');

/** A log sink that keeps the lines. */
/** The lines the server's default level (info) would print: a debug line is the log's, not the test's. */
export function collectLog(): { lines: string[]; log: Log } {
  const lines: string[] = [];
  return {
    lines,
    log: (line, level = 'info') => {
      if (shows('info', level)) lines.push(line);
    },
  };
}

/** The JSON lines the recorder fixture wrote. */
export function readRecord(file: string): Array<Record<string, unknown>> {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

export function textOf(result: CallToolResult): string {
  return result.content.map((block) => (block.type === 'text' ? block.text : `[${block.type}]`)).join('');
}

/** Waits until `check` holds; the test's timeout is the only bound (test/support/waiting.ts). */
export async function until(check: () => boolean): Promise<void> {
  await waitUntil('a condition of the test', check);
}

/** A test's hub and scratch directory: after each test the hub is closed, the directory removed, and no process may be left. */
export function hubPerTest(): { hub?: UpstreamHub; dir?: string } {
  const scratch: { hub?: UpstreamHub; dir?: string } = {};
  afterEach(async () => {
    await scratch.hub?.close();
    if (scratch.dir !== undefined) rmSync(scratch.dir, { recursive: true, force: true });
    delete scratch.hub;
    delete scratch.dir;
    expect(childPidsOf(process.pid)).toEqual([]);
  });
  return scratch;
}

/**
 * A test's hub and remote server process: after each test the hub is closed, the server killed,
 * and no process may be left. `serve` starts the server (node with `args`) and resolves with what
 * `ready` matched on its stderr.
 */
export function remotePerTest(): {
  hub?: UpstreamHub;
  serve(args: string[], env: NodeJS.ProcessEnv, ready: RegExp): Promise<RegExpExecArray>;
} {
  let server: ChildProcess | undefined;
  const scratch = {
    hub: undefined as UpstreamHub | undefined,
    serve(args: string[], env: NodeJS.ProcessEnv, ready: RegExp): Promise<RegExpExecArray> {
      const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
      server = child;
      return new Promise((resolve, reject) => {
        let said = '';
        child.stderr.on('data', (chunk: Buffer) => {
          said += String(chunk);
          const match = ready.exec(said);
          if (match !== null) resolve(match);
        });
        child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited with ${code}: ${said}`)));
      });
    },
  };
  afterEach(async () => {
    await scratch.hub?.close();
    scratch.hub = undefined;
    if (server !== undefined && server.exitCode === null) {
      const exited = new Promise((resolve) => server!.once('close', resolve));
      server.kill('SIGKILL');
      await exited;
    }
    server = undefined;
    expect(childPidsOf(process.pid)).toEqual([]);
  });
  return scratch;
}
