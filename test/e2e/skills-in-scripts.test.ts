/**
 * Skills in scripts, as a client drives them: one run saves a skill, the client is told its tools changed, the next run's searchTools finds it,
 * the next tools/list names it in code_execution's description, a later run calls it, and so
 * does a restarted server with the same --skills-dir and a script run by hand; a file edited by
 * hand is what the next call runs; over HTTP a save is refused unless the config allows it.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { connectHttp } from '../support/http-server.js';
import { startInProcessHttp } from '../support/in-process-http.js';
import { fixturePath, stderrLine } from '../support/mcp-client.js';
import { runInProcess } from '../support/in-process-command.js';
import { RECORDER_UPSTREAM, valueOfRun, withRecorderServer } from '../support/recorder-server.js';
import { makeTempDir } from '../support/temp-dirs.js';

const upstream = RECORDER_UPSTREAM;

const SAVE = `return await skills.save({
  name: "word-count",
  description: "Counts the words of a text",
  inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
  code: "const words: string[] = input.text.split(/\\\\s+/).filter(Boolean);\\nreturn words.length;",
});`;
const CALL = 'return await skills["word-count"]({ text: "one two  three" });';

describe('skills in scripts over stdio', () => {
  test('one run saves a skill, a later run and a restarted server call it, and so does run; an edit by hand is picked up', async () => {
    const dir = join(makeTempDir('skills-e2e'), 'skills');
    await withRecorderServer(['--skills-dir', dir], async (server) => {
      expect((await server.client.listTools()).tools[0]!.description).not.toContain('Saved skills');
      const listChanged = new Promise<void>((resolve) =>
        server.client.setNotificationHandler('notifications/tools/list_changed', () => resolve()),
      );
      const saved = await valueOfRun(server, SAVE);
      await listChanged;
      expect(saved).toMatchObject({ name: 'word-count', digest: expect.stringMatching(/^sha256:/) });
      const digest = (saved as { digest: string }).digest;
      expect(await stderrLine(server, /skill "word-count" saved/)).toContain(`saved by the client (stdio) (${digest})`);
      expect(await valueOfRun(server, CALL)).toBe(3);
      expect(await valueOfRun(server, 'return searchTools("count the words").map((hit) => hit.name)')).toContain(
        'skills["word-count"]',
      );
      const { tools } = await server.client.listTools();
      expect(tools[0]!.description).toContain('\nSaved skills (1):\n- word-count: Counts the words of a text\n');
      expect(
        await valueOfRun(
          server,
          'try { await skills["word-count"]({ text: 5 }) } catch (e) { return e.name + ": " + e.message }',
        ),
      ).toBe('TypeError: skills["word-count"](input): input.text must be string, not number; the skill did not run');
    });
    expect(readFileSync(join(dir, 'word-count', 'skill.ts'), 'utf8')).toContain('const words: string[]');

    await withRecorderServer(['--skills-dir', dir], async (server) => {
      expect(await valueOfRun(server, CALL)).toBe(3);
      expect(await valueOfRun(server, 'return await skills.list()')).toEqual([
        { name: 'word-count', description: 'Counts the words of a text' },
      ]);
      writeFileSync(join(dir, 'word-count', 'skill.ts'), 'return input.text.length;');
      expect(await valueOfRun(server, CALL)).toBe(14);
    });

    const { stdout, exitCode, left } = await runInProcess(['run', '-', '--skills-dir', dir, ...upstream], { input: CALL });
    expect(exitCode).toBe(0);
    expect(left).toEqual([]);
    expect(stdout).toContain('value: 14');
  });
});

describe('skills in scripts over HTTP', () => {
  const SAVE_SMALL = `try { await skills.save({ name: "small", description: "d", code: "return 1;" }); return "saved"; }
    catch (e) { return e.name + ": " + e.message }`;

  test('a save is refused by default, saying which setting allows it; calling a saved skill is open', async () => {
    const dir = join(makeTempDir('skills-http'), 'skills');
    await withRecorderServer(['--skills-dir', dir], async (server) =>
      expect(await valueOfRun(server, SAVE)).toMatchObject({ name: 'word-count' }),
    );
    const server = await startInProcessHttp(['--skills-dir', dir, '--pool', '0', ...upstream]);
    const client = await connectHttp(server.url);
    try {
      expect(await valueOfRun(client, SAVE_SMALL)).toBe(
        'ToolRefused: SKILL_SAVE_REFUSED: skill "small" was not saved: saving skills over HTTP is off (a skill is code every session may then run); the config file\'s setting "skillsSaveOverHttp": true allows it',
      );
      expect(await valueOfRun(client, CALL)).toBe(3);
    } finally {
      await client.close();
      expect((await server.stop()).left).toEqual([]);
    }
  });

  test('with skillsSaveOverHttp a session saves, and the log names the session', async () => {
    const base = makeTempDir('skills-http-on');
    const config = join(base, 'servers.json');
    const dir = join(base, 'skills');
    writeFileSync(
      config,
      JSON.stringify({
        mcpServers: { recorder: { command: process.execPath, args: [fixturePath('upstreams/recorder.mjs')] } },
        settings: { skillsSaveOverHttp: true, skillsDir: dir, pool: 0 },
      }),
    );
    const server = await startInProcessHttp(['--config', config]);
    const client = await connectHttp(server.url);
    try {
      expect(await valueOfRun(client, SAVE_SMALL)).toBe('saved');
      expect(await server.logged(/skill "small" saved by session \S+ \(sha256:[0-9a-f]{64}\)/)).toBeTruthy();
      expect(await valueOfRun(client, 'return await skills.small()')).toBe(1);
    } finally {
      await client.close();
      expect((await server.stop()).left).toEqual([]);
    }
  });
});
