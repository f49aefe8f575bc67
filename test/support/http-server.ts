/**
 * Starts bin/codemode-mcp.js with --http as a user would, waits for the line that says where it
 * listens, and connects the SDK's Streamable HTTP client to it.
 */
import { spawn } from 'node:child_process';
import { chmodSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import {
  Client,
  StreamableHTTPClientTransport,
  type CallToolResult,
  type LoggingMessageNotification,
} from '@modelcontextprotocol/client';
import { BIN, SERVER_RUNTIME, binArgs, testClient, trackDescendants, type ClientSetup } from './mcp-client.js';
import { makeTempDir } from './temp-dirs.js';
import { until } from './waiting.js';

export interface HttpServer {
  /** `http://127.0.0.1:<port>/mcp` */
  readonly url: string;
  readonly port: number;
  readonly pid: number;
  stderr(): string;
  /** Resolves when the server's stderr has a line matching `pattern`; fails if the server exits first. */
  logged(pattern: RegExp): Promise<string>;
  readonly exited: Promise<{ code: number | null; signal: string | null }>;
  /** Sends `signal` (SIGTERM by default), waits for the exit, and returns what it left running. */
  stop(signal?: NodeJS.Signals): Promise<{ code: number | null; signal: string | null; left: number[] }>;
}

const LISTENING = /serving MCP over HTTP at (http:\/\/\S+\/mcp)/;

/**
 * `args` go before `--http` (put the upstream after `--` in them); `listen` is `127.0.0.1:0` unless
 * given; `nodeArgs` are the runtime's own, for the server's process only. Unless `args` set
 * `--drain-grace-ms`, SIGTERM shuts down at once (`--drain-grace-ms 0`), as the tests that stop
 * a server with scripts running expect; http-drain.test.ts tests the drain.
 */
export async function startHttpServer(
  args: readonly string[],
  options: { env?: Record<string, string>; listen?: string; nodeArgs?: readonly string[] } = {},
): Promise<HttpServer> {
  const dash = args.indexOf('--');
  const ours = dash === -1 ? [...args] : args.slice(0, dash);
  if (!ours.includes('--drain-grace-ms')) ours.push('--drain-grace-ms', '0');
  const upstream = dash === -1 ? [] : args.slice(dash);
  const child = spawn(
    SERVER_RUNTIME,
    [...(options.nodeArgs ?? []), ...binArgs(BIN, ['--http', options.listen ?? '127.0.0.1:0', ...ours, ...upstream])],
    {
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...options.env },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
    if (process.env.CODEMODE_E2E_STDERR) process.stderr.write(chunk);
  });
  const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  let closed = false;
  child.once('close', () => (closed = true));
  const logged = (pattern: RegExp): Promise<string> =>
    until(
      `the server to log ${String(pattern)}`,
      () => {
        const match = pattern.exec(stderr);
        if (match !== null) return match[0];
        // After 'close' its stderr is all there is.
        if (closed) throw new Error(`the server exited before logging ${String(pattern)}; its stderr:\n${stderr}`);
        return undefined;
      },
      () => `its stderr:\n${stderr.slice(-2_000)}`,
    );
  const url = LISTENING.exec(await logged(LISTENING))![1]!;
  const tracker = trackDescendants(child.pid!);
  return {
    url,
    port: Number(new URL(url).port),
    pid: child.pid!,
    stderr: () => stderr,
    logged,
    exited,
    stop: async (signal = 'SIGTERM') => {
      tracker.sample();
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      const exit = await exited;
      tracker.stop();
      return { ...exit, left: await tracker.leftAlive() };
    },
  };
}

export interface HttpClient {
  readonly client: Client;
  readonly transport: StreamableHTTPClientTransport;
  readonly logs: LoggingMessageNotification['params'][];
  run(args: Record<string, unknown>, options?: Parameters<Client['callTool']>[1]): Promise<CallToolResult>;
  /** Ends the session with DELETE, then closes the client. */
  close(): Promise<void>;
}

export interface ConnectOptions extends ClientSetup {
  readonly token?: string;
  readonly name?: string;
  /** Told every byte of the server's HTTP responses to this client (their bodies, SSE streams included), as they arrive. */
  readonly onBytes?: (chunk: Uint8Array) => void;
}

/** fetch, with each response's body also read to `onBytes` as the client reads it. */
function recordingFetch(onBytes: (chunk: Uint8Array) => void): (url: string | URL, init?: RequestInit) => Promise<Response> {
  return async (url, init) => {
    const response = await fetch(url, init);
    if (response.body === null) return response;
    const [kept, copy] = response.body.tee();
    // A stream the client cancels ends its copy with an error: what arrived before is recorded.
    void (async () => {
      for await (const chunk of copy as AsyncIterable<Uint8Array>) onBytes(chunk);
    })().catch(() => undefined);
    return new Response(kept, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}

/** A client on its own session of the server at `url`. */
export async function connectHttp(url: string, options: ConnectOptions = {}): Promise<HttpClient> {
  const { client, logs } = testClient(options.name ?? 'e2e-http-client', options);
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    ...(options.token !== undefined ? { requestInit: { headers: { Authorization: `Bearer ${options.token}` } } } : {}),
    ...(options.onBytes !== undefined ? { fetch: recordingFetch(options.onBytes) } : {}),
  });
  await client.connect(transport);
  return {
    client,
    transport,
    logs,
    run: (args, callOptions) => client.callTool({ name: 'code_execution', arguments: args }, callOptions),
    close: async () => {
      // A 2026-07-28 client has no session to end.
      if (transport.sessionId === undefined) {
        await client.close();
        return;
      }
      // A DELETE that fails leaves the session on the server: said, so a test that then counts sessions shows why.
      await transport.terminateSession().catch((error: unknown) => {
        process.stderr.write(`test client: DELETE of session ${transport.sessionId ?? '(none)'} failed: ${String(error)}\n`);
      });
      await client.close();
    },
  };
}

/** The headers every raw MCP POST needs. */
export function mcpHeaders(extra: Record<string, string> = {}): Record<string, string> {
  return { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...extra };
}

/** An initialize body, as a raw client sends it. */
/** An upstream command (after `--`) that starts and never answers, for servers whose scripts call no tool: give `--startup-wait-ms 0` so nothing waits for it. */
export const SILENT_UPSTREAM: readonly string[] = [process.execPath, '-e', 'setInterval(() => {}, 1e9)'];

/**
 * A server's arguments for principals from `tokensFile` in front of SILENT_UPSTREAM, with no pool:
 * for tests of who may reach what, whose scripts call no tool (nothing waits for the upstream's start).
 */
export function principalsArgs(tokensFile: string): string[] {
  return ['--http-tokens-file', tokensFile, '--pool', '0', '--startup-wait-ms', '0', '--', ...SILENT_UPSTREAM];
}

/** A tokens file (`--http-tokens-file`) of these principals and their tokens, with this mode. */
export function writeTokensFile(tokens: Record<string, string>, mode = 0o600): string {
  const file = join(makeTempDir('tokens'), 'tokens.json');
  writeFileSync(file, JSON.stringify(tokens));
  chmodSync(file, mode);
  return file;
}

export const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1.0.0' } },
} as const;

export interface RawAnswer {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly text: string;
  /** The body as JSON, or the JSON of an SSE stream's first message. */
  json(): Record<string, unknown>;
}

/**
 * One HTTP request with exactly these headers (node:http, so Host can be anything), read to its
 * end; an SSE answer is read until its first message unless `whole` is set.
 */
export function rawRequest(
  port: number,
  options: { method?: string; path?: string; headers?: Record<string, string>; body?: string | Buffer; whole?: boolean },
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      // A connection of its own (no keep-alive pool): a socket kept from an earlier request can be
      // closed by the server's keep-alive timeout just as this one is written on it (ECONNRESET), as
      // after the server was busy for seconds writing a heap snapshot.
      {
        host: '127.0.0.1',
        port,
        method: options.method ?? 'POST',
        path: options.path ?? '/mcp',
        headers: options.headers ?? {},
        agent: false,
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        const done = (): void => {
          const answer: RawAnswer = {
            status: res.statusCode ?? 0,
            headers: res.headers,
            text,
            json: () => JSON.parse(/^data: (.*)$/m.exec(text)?.[1] ?? text) as Record<string, unknown>,
          };
          resolve(answer);
        };
        res.on('data', (chunk: string) => {
          text += chunk;
          if (!options.whole && String(res.headers['content-type']).includes('text/event-stream') && /^data: .+$/m.test(text)) {
            res.destroy();
            done();
          }
        });
        res.on('end', done);
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}
