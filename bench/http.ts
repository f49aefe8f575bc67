/**
 * The HTTP mode's figures against stdio's, measured in the same run: codemode-mcp --http in front
 * of the timing upstream, reached with the SDK's Streamable HTTP client.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { PACKAGE_ROOT } from '../src/isolate/engine-path.js';
import { TIMING_UPSTREAM, type Connected } from './server.js';

const BIN = join(PACKAGE_ROOT, 'bin', 'codemode-mcp.js');

export interface HttpInstance {
  readonly url: string;
  readonly pid: number;
  /** A new session: a client connected (initialize done). */
  session(): Promise<Connected>;
  close(): Promise<void>;
}

/** codemode-mcp --http on a free loopback port in front of the timing upstream; resolves once upstreams are up. */
export function startHttpInstance(flags: string[]): Promise<HttpInstance> {
  const child = spawn(process.execPath, [BIN, '--http', '127.0.0.1:0', ...flags, '--', process.execPath, TIMING_UPSTREAM], {
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
        pid: child.pid!,
        session: async () => {
          const transport = new StreamableHTTPClientTransport(new URL(at));
          const client = new Client({ name: 'codemode-bench', version: '1.0.0' });
          await client.connect(transport);
          return { client, pid: child.pid!, close: async () => {
            await transport.terminateSession().catch(() => {});
            await client.close();
          } };
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
