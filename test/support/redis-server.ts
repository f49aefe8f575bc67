/**
 * A real redis-server for the state tests: started on a free loopback port with no persistence,
 * in a temp dir, and stopped by the caller. Where redis-server is missing, a test skips saying so,
 * and fails under CI=true (.ci/run installs it).
 */
import { spawn, spawnSync } from 'node:child_process';
import { accepting, freePort } from './ports.js';
import { makeTempDir } from './temp-dirs.js';

export const REDIS_INSTALLED = spawnSync('redis-server', ['--version']).status === 0;
export const REDIS_MISSING = 'redis-server is not installed here (apt-get install -y redis-server; .ci/run installs it)';

/** Whether a file's Redis tests run: where redis-server is missing they skip (saying so on stderr), but not under CI=true, where they fail. */
export function redisTestsRun(file: string): boolean {
  if (!REDIS_INSTALLED && process.env.CI !== 'true')
    process.stderr.write(`${file}: ${REDIS_MISSING}; skipping its Redis tests\n`);
  return REDIS_INSTALLED || process.env.CI === 'true';
}

export interface RunningRedis {
  readonly url: string;
  stop(): Promise<void>;
}

export async function startRedis(): Promise<RunningRedis> {
  if (!REDIS_INSTALLED) throw new Error(REDIS_MISSING);
  const port = await freePort();
  const redis = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', makeTempDir('redis')],
    { stdio: 'ignore' },
  );
  const exited = new Promise((resolve) => redis.once('exit', resolve));
  await accepting(port);
  return {
    url: `redis://127.0.0.1:${port}`,
    stop: async () => {
      if (redis.exitCode === null && redis.signalCode === null) redis.kill('SIGTERM');
      await exited;
    },
  };
}
