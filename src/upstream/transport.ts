/**
 * Opens the transport an upstream entry names and connects a client over it: stdio with a minimal
 * environment and its stderr passed on line by line; Streamable HTTP, falling back to SSE when the
 * server answers like one that doesn't speak it; or SSE.
 */
import { Client, SdkHttpError, SSEClientTransport, StreamableHTTPClientTransport, type Transport } from '@modelcontextprotocol/client';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import type { StdioUpstreamSpec, UpstreamSpec } from './spec.js';
import { StderrLines } from './stderr-lines.js';

export type TransportKind = 'stdio' | 'http' | 'sse';

export interface Connected {
  readonly client: Client;
  readonly transport: Transport;
  readonly kind: TransportKind;
}

export interface ConnectOptions {
  /** A new client, its handlers installed; called once per transport tried. */
  readonly createClient: () => Client;
  readonly stderr: StderrLines;
  readonly timeoutMs: number;
  readonly signal: AbortSignal;
}

export async function connectUpstream(spec: UpstreamSpec, options: ConnectOptions): Promise<Connected> {
  if (spec.transport === 'stdio') return connectOver('stdio', createStdioTransport(spec, options.stderr), options);
  const url = new URL(spec.url);
  const requestInit = { headers: spec.headers };
  if (spec.transport === 'sse') return connectOver('sse', new SSEClientTransport(url, { requestInit }), options);
  try {
    return await connectOver('http', new StreamableHTTPClientTransport(url, { requestInit }), options);
  } catch (error) {
    if (!speaksNoStreamableHttp(error) || options.signal.aborted) throw error;
    return connectOver('sse', new SSEClientTransport(url, { requestInit }), options);
  }
}

/** The entry's env over the SDK's minimal inherited set (PATH, HOME, ...), never our whole environment. */
export function createStdioTransport(spec: StdioUpstreamSpec, stderr: StderrLines): StdioClientTransport {
  const transport = new StdioClientTransport({
    command: spec.command,
    args: spec.args,
    env: { ...getDefaultEnvironment(), ...spec.env },
    ...(spec.cwd !== undefined ? { cwd: spec.cwd } : {}),
    stderr: 'pipe',
  });
  // The SDK hands out the stderr stream before start(), so not even the first line is lost.
  if (transport.stderr) stderr.attach(transport.stderr);
  return transport;
}

async function connectOver(kind: TransportKind, transport: Transport, options: ConnectOptions): Promise<Connected> {
  const client = options.createClient();
  try {
    await client.connect(transport, { timeout: options.timeoutMs, signal: options.signal });
    return { client, transport, kind };
  } catch (error) {
    await client.close().catch(() => {});
    await transport.close().catch(() => {});
    throw error;
  }
}

/** A 4xx other than 401/403 on the first POST: a server that serves only the older SSE transport. */
function speaksNoStreamableHttp(error: unknown): boolean {
  if (!(error instanceof SdkHttpError)) return false;
  return error.status >= 400 && error.status < 500 && error.status !== 401 && error.status !== 403;
}
