/**
 * The MCP Bundle's settings form, as build/bundle-mcpb.js makes it from mcpb/manifest.template.json
 * and the settings' specs: every answer the form allows starts the server. Fast: no bundle is built
 * (test/package/bundle.test.ts builds and starts one).
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { isCliExit, parseCli } from '../../src/cli/parse-cli.js';
import { askedSettings, fillSettingQuestions, type BundleManifest } from '../../src/config/bundle-questions.js';
import { SETTINGS } from '../../src/config/settings.js';
import { ROOT } from '../support/mcp-client.js';
import { makeTempDir } from '../support/temp-dirs.js';

const template = JSON.parse(readFileSync(join(ROOT, 'mcpb', 'manifest.template.json'), 'utf8')) as BundleManifest;
const manifest = fillSettingQuestions(template);
const asked = askedSettings(manifest);

let dir: string;
let config: string;
beforeAll(() => {
  dir = makeTempDir('bundle-questions');
  config = join(dir, 'servers.json');
  writeFileSync(config, JSON.stringify({ mcpServers: { a: { command: 'x' } } }));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** The server's command line with these answers (the rest at the form's defaults), filled in as Claude Desktop does; the exit it gets, if any. */
function startWith(answers: Readonly<Record<string, number>>): string | undefined {
  const args = manifest.server.mcp_config.args.map((arg) =>
    arg.replace(/\$\{user_config\.(\w+)\}/g, (_, key: string) =>
      key === 'servers_config' ? config : String(answers[key] ?? manifest.user_config[key]!.default),
    ),
  );
  const result = parseCli(args.slice(1), { env: {}, cwd: dir, homedir: dir });
  return isCliExit(result) ? (result.stderr ?? `exit ${result.exit}`) : undefined;
}

describe("the bundle's settings form", () => {
  test('asks about the settings a user tunes, and leaves their ranges to the specs', () => {
    expect(asked.map(({ name }) => name)).toEqual(['yieldMs', 'maxRunningScripts', 'memoryMaxBytes']);
    for (const { key } of asked) expect(Object.keys(template.user_config[key]!)).not.toContain('max');
  });

  // Regression: the form offered "answer within" up to 3,600 s, and the server refused any yieldMs
  // past maxYieldMs (600 s by default): the extension never started.
  test("offers a yield only up to maxYieldMs's default, which the bundle does not set", () => {
    expect(manifest.user_config.yield_seconds).toMatchObject({ default: 30, min: 0, max: SETTINGS.maxYieldMs.default / 1000 });
  });

  test.each(asked)("$key: the default, the min and the max each start the server, and one past either end doesn't", ({ key }) => {
    const { default: fallback, min, max } = manifest.user_config[key]!;
    for (const answer of [fallback as number, min!, max!]) expect(startWith({ [key]: answer })).toBeUndefined();
    expect(startWith({ [key]: max! + 1 })).toMatch(/SETTING_INVALID/);
    expect(startWith({ [key]: min! - 1 })).toMatch(/SETTING_INVALID/);
  });

  test('every corner of the form at once starts the server', () => {
    let corners: Record<string, number>[] = [{}];
    for (const { key } of asked) {
      const { min, max } = manifest.user_config[key]!;
      corners = corners.flatMap((corner) => [
        { ...corner, [key]: min! },
        { ...corner, [key]: max! },
      ]);
    }
    for (const corner of corners) expect(startWith(corner), JSON.stringify(corner)).toBeUndefined();
  });

  test("refuses to make a form asking for two settings one rule ties together, whose ranges it can't tie", () => {
    const both = {
      server: { mcp_config: { args: ['--yield-ms', '${user_config.a}s', '--max-yield-ms', '${user_config.b}s'] } },
      user_config: { a: { type: 'number' }, b: { type: 'number' } },
    };
    expect(() => fillSettingQuestions(both)).toThrow('asks for both yieldMs and maxYieldMs');
  });
});
