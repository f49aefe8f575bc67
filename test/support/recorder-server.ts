import { expect } from 'vitest';
import { fixturePath, textOf, valueOf } from './mcp-client.js';
import { startInProcess, type InProcessServer } from './in-process-server.js';

/** The recorder fixture as an upstream command: a few plain tools, cheap to start. */
export const RECORDER_UPSTREAM = ['--', process.execPath, fixturePath('upstreams/recorder.mjs')];

/** Runs `code` and gives its value, once the run has not failed (its text says why when it has). */
export async function valueOfRun(server: Pick<InProcessServer, 'run'>, code: string): Promise<unknown> {
  const result = await server.run({ code });
  expect(result.isError, textOf(result)).toBe(false);
  return valueOf(result);
}

/** A stdio server with `args` in front of the recorder, no pool; closed after `use`, leaving nothing behind. */
export async function withRecorderServer<T>(args: readonly string[], use: (server: InProcessServer) => Promise<T>): Promise<T> {
  const server = await startInProcess([...args, '--pool', '0', ...RECORDER_UPSTREAM]);
  try {
    return await use(server);
  } finally {
    expect(await server.close()).toEqual([]);
  }
}
