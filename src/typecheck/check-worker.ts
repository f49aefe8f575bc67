/**
 * The checker's worker thread (script-checker.ts starts it; build/bundle-node.js bundles it as
 * dist/server/check-worker.cjs): loads TypeScript, then answers the server's requests one at a
 * time. Its heap is bounded by the server; a check past its time limit ends it from outside.
 */
import { parentPort } from 'node:worker_threads';
import type * as TS from 'typescript';
import type { WorkerReply, WorkerRequest } from './check-messages.js';
import { CheckCompiler } from './check-program.js';

async function serve(): Promise<void> {
  const port = parentPort;
  if (port === null) throw new Error('check-worker runs as a worker thread of the server');
  // CommonJS: its exports are the module's default (esbuild's bundle gives them as names too).
  const loaded = (await import('typescript')) as typeof TS & { default?: typeof TS };
  const ts = loaded.default ?? loaded;
  const compiler = new CheckCompiler(ts);
  port.on('message', (request: WorkerRequest) => {
    let reply: WorkerReply;
    try {
      switch (request.type) {
        case 'prepare':
          compiler.prepare(request.catalog);
          reply = { id: request.id, done: true };
          break;
        case 'recycle':
          compiler.recycle();
          reply = { id: request.id, done: true };
          break;
        case 'check': {
          const result = compiler.check(request.key, request.source, request.unlisted);
          reply = { id: request.id, result, ...(compiler.grown() ? { grown: true as const } : {}) };
          break;
        }
      }
    } catch (error) {
      reply = { id: request.id, error: error instanceof Error ? (error.stack ?? error.message) : String(error) };
    }
    port.postMessage(reply);
  });
}

void serve();
