// `npm run lint`: prettier, tsc, typescript-eslint and knip, in two lanes at once (the machines it
// runs on have two cores): eslint alone, since it builds the whole program once and then takes
// the longest; the other three one after another beside it. Each tool's output is printed whole
// when it ends, with its time; the exit is non-zero when any of them failed.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

const LANES = [[['eslint', '.']], [['prettier', '--check', '.'], ['tsc', '-p', 'tsconfig.test.json'], ['knip']]];

/** Runs one tool from node_modules/.bin, its stdout and stderr kept in order; resolves whether it passed. */
function runTool([tool, ...args]) {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(`node_modules/.bin/${tool}`, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    const output = [];
    child.stdout.on('data', (chunk) => output.push(chunk));
    child.stderr.on('data', (chunk) => output.push(chunk));
    const finish = (passed, why) => {
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      process.stdout.write(Buffer.concat(output));
      process.stdout.write(`lint: ${[tool, ...args].join(' ')} ${passed ? 'passed' : `failed (${why})`} in ${seconds} s\n`);
      resolve(passed);
    };
    child.on('error', (error) => finish(false, error.message));
    child.on('close', (code, signal) => finish(code === 0, signal ?? `exit ${code}`));
  });
}

/** Runs a lane's tools one after another, each whatever the one before did; resolves whether all passed. */
async function runLane(tools) {
  let passed = true;
  for (const tool of tools) passed = (await runTool(tool)) && passed;
  return passed;
}

const results = await Promise.all(LANES.map(runLane));
process.exitCode = results.every(Boolean) ? 0 : 1;
