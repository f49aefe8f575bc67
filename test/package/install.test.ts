/**
 * The package as npm ships it: packed, installed into an empty directory (dependencies from
 * npm's cache, which `npm ci` filled), then run from there as a user's client would run it.
 */
import { readdirSync, rmSync, writeFileSync } from 'node:fs';

import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, publishedEntry, startServer, textOf, valueOf } from '../support/mcp-client.js';
import { makeTempDir } from '../support/temp-dirs.js';

/** A script the type check refuses (a misspelled argument of server-everything's echo). */
const WRONG_SCRIPT = 'return (await tools["echo"]({ mesage: "x" })).content[0].text;\n';

let dir: string;
let installedBin: string;
let packed: string[];

beforeAll(async () => {
  dir = makeTempDir('package');
  // The build is already made (npm test builds first); packing must not run it again.
  const pack = await execa('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', dir], { cwd: ROOT });
  const [info] = JSON.parse(pack.stdout) as Array<{ filename: string; files: Array<{ path: string }> }>;
  packed = info!.files.map((file) => file.path);
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'codemode-user', private: true }));
  await execa('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', join(dir, info!.filename)], { cwd: dir });
  installedBin = join(dir, 'node_modules', 'codemode-mcp', 'bin', 'codemode-mcp.js');
}, 180_000);

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('the packed package, installed', () => {
  it('ships what runs, and the license, with no benchmarks and no source maps', () => {
    expect(packed).toContain('LICENSE');
    expect(packed).toContain('dist/prelude.snapshot');
    expect(
      packed.filter((path) => path.startsWith('dist/bench/') || path.endsWith('.map') || path.startsWith('dist/prelude/')),
    ).toEqual([]);
  });

  it("installs the engine, TypeScript's native compiler with its platform's binary (the type check) and what is loaded only when configured: the Redis client (--state-url), the OpenTelemetry SDK (--otel), libphonenumber-js and validator (tokenize); the server and the child are bundles that carry the rest", () => {
    const installed = readdirSync(join(dir, 'node_modules')).filter((name) => !name.startsWith('.'));
    expect(installed.sort()).toEqual([
      '@opentelemetry',
      '@redis',
      '@typescript',
      'codemode-mcp',
      'libphonenumber-js',
      'quickjs-wasi',
      'typescript-native',
      'validator',
    ]);
  });

  it('type-checks a script with the installed native compiler, through the bundled API', async () => {
    const script = join(dir, 'wrong.js');
    writeFileSync(script, WRONG_SCRIPT);
    const result = await execa(installedBin, ['check', script, '--', process.execPath, publishedEntry('server-everything')], {
      reject: false,
    });
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toContain("Property 'message' is missing");
  });

  it('prints its help from the installed executable', async () => {
    const result = await execa(join(dir, 'node_modules', '.bin', 'codemode-mcp'), ['--help']);
    expect(result.stdout).toContain('Usage: codemode-mcp');
    expect(readdirSync(join(dir, 'node_modules', 'codemode-mcp'))).not.toContain('test');
  });

  it('runs a script against server-everything, and refuses one the type check finds wrong', async () => {
    // A minute for the check: a check past its limit would let the wrong script run, and this machine may be loaded.
    const server = await startServer(
      ['--type-check-timeout-ms', '60s', '--', process.execPath, publishedEntry('server-everything')],
      {
        bin: installedBin,
      },
    );
    const result = await server.run({ code: 'return (await tools["echo"]({ message: "from the package" })).content[0].text' });
    expect(valueOf(result)).toBe('Echo: from the package');
    const refused = await server.run({ code: WRONG_SCRIPT });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toMatch(/^Refused by the type check; nothing ran\. 1 problem in the script:\nscript:1:29: /);
    expect(await server.close()).toEqual([]);
  });
});
