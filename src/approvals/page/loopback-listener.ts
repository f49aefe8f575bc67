/**
 * The approval page's own listener when the server speaks stdio: 127.0.0.1, on a port the system
 * picks, started by the first question and closed once no question has been open for
 * PAGE_ENDED_KEPT_MS (while it is up it answers every link it issued, ended ones as ended).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Log } from '../../support/log.js';

/** Where the stdio listener binds: this machine only. */
export const LOOPBACK_HOST = '127.0.0.1';

export interface LoopbackOptions {
  readonly handle: (req: IncomingMessage, res: ServerResponse) => Promise<void>;
  /** Called once the listener has closed for idleness: the links it served are forgotten. */
  readonly onIdleClose: () => void;
  readonly idleMs: number;
  readonly log: Log;
}

export class LoopbackListener {
  private server: Server | undefined;
  private starting: Promise<string> | undefined;
  private idleTimer: NodeJS.Timeout | undefined;

  constructor(private readonly options: LoopbackOptions) {}

  /** `http://127.0.0.1:<port>`, listening (started now if it was not). */
  origin(): Promise<string> {
    this.starting ??= this.start();
    return this.starting;
  }

  /** The origin while listening, else undefined. */
  get originNow(): string | undefined {
    const address = this.server?.listening === true ? (this.server.address() as AddressInfo) : undefined;
    return address === undefined ? undefined : `http://${LOOPBACK_HOST}:${address.port}`;
  }

  /** The number of open questions changed: with none open, the idle timer runs; with some, it stops. */
  openChanged(open: number): void {
    clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
    if (open > 0 || this.starting === undefined) return;
    this.idleTimer = setTimeout(() => void this.closeIdle(), this.options.idleMs);
    this.idleTimer.unref();
  }

  async close(): Promise<void> {
    clearTimeout(this.idleTimer);
    const server = this.server;
    this.server = undefined;
    this.starting = undefined;
    if (server === undefined) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private async start(): Promise<string> {
    const server = createServer((req, res) => {
      this.options.handle(req, res).catch((error: unknown) => {
        this.options.log(
          `codemode-mcp: approval page: could not answer: ${error instanceof Error ? error.message : String(error)}`,
          'error',
        );
        if (!res.headersSent) res.writeHead(500, { 'Content-Type': 'text/plain', 'Cache-Control': 'no-store' });
        res.end('Internal error: see the server log');
      });
    });
    this.server = server;
    try {
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(0, LOOPBACK_HOST, () => {
          server.off('error', reject);
          resolve();
        });
      });
    } catch (error) {
      this.server = undefined;
      this.starting = undefined;
      throw error;
    }
    // A server in the background: its connections must not keep a finished process alive.
    server.unref();
    const origin = this.originNow!;
    this.options.log(`codemode-mcp: approval page listening at ${origin}`, 'info');
    return origin;
  }

  private async closeIdle(): Promise<void> {
    await this.close();
    this.options.log('codemode-mcp: approval page closed: no question has been open for a while', 'info');
    this.options.onIdleClose();
  }
}
