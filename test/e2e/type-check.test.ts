/**
 * The type check before a run (issue 47), end to end: a script the check refuses starts nothing
 * and sends nothing (the recorder upstream writes down every call it gets), the answer says where
 * each problem is and shows the tool's declaration; each typeCheck mode; skills, checked when
 * saved and when called; the same check for a 2026-07-28 caller, over HTTP for both revisions, and
 * for `codemode-mcp run`; a script whose check costs too much runs unchecked by the time limit,
 * saying so, while the server goes on answering.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { connectHttp } from '../support/http-server.js';
import { startInProcessHttp } from '../support/in-process-http.js';
import { runInProcess } from '../support/in-process-command.js';
import { RUN_EXIT } from '../../src/commands/run/run-once.js';
import { startInProcess, type InProcessServer } from '../support/in-process-server.js';
import { fixturePath, nodeEntry, publishedEntry, structuredOf, textOf, valueOf, writeConfig } from '../support/mcp-client.js';
import { makeTempDir } from '../support/temp-dirs.js';
import { until } from '../support/waiting.js';
import { readRecord } from '../upstream/specs.js';

/** The calls the recorder received (its file holds its start and every call). */
function callsIn(recordFile: string): Array<Record<string, unknown>> {
  return readRecord(recordFile).filter((entry) => entry.event === 'call');
}

/**
 * The longest check a run waits for: these tests are about what a check finds, and a check past
 * typeCheckTimeoutMs lets the script run unchecked, which a loaded machine must not bring about.
 */
const AMPLE_TIME = ['--type-check-timeout-ms', '60s'];

/** A script with a wrong tool name after a call that must not be sent. */
const WRONG_NAME = 'await tools["echo"]({ text: "sent first" });\nreturn await tools["ecko"]({ text: "never" });';
const WRONG_NAME_REFUSAL =
  /^Refused by the type check; nothing ran\. 1 problem in the script:\nscript:2:20: tools\["ecko"\] is not a tool\. Did you mean "echo"\?\n/;

/** A recorder upstream writing to a file of its own, in a config with `more` entries beside it. */
function recorderSetup(label: string, more: Record<string, unknown> = {}): { config: string; recordFile: string } {
  const recordFile = join(makeTempDir(label), 'record.jsonl');
  const config = writeConfig({
    recorder: nodeEntry(fixturePath('upstreams/recorder.mjs'), [], { env: { RECORD_FILE: recordFile } }),
    ...more,
  });
  return { config, recordFile };
}

describe('a script the type check refuses, in front of the recorder and server-everything', () => {
  // One server for these: server-everything takes 2 s to close.
  let server: InProcessServer;
  let recordFile: string;

  beforeAll(async () => {
    const setup = recorderSetup('type-check', { everything: nodeEntry(publishedEntry('server-everything'), ['stdio']) });
    recordFile = setup.recordFile;
    server = await startInProcess(['--config', setup.config, ...AMPLE_TIME]);
  });

  afterAll(async () => {
    expect(await server.close()).toEqual([]);
  });

  test('a wrong tool name: refused before the call above it is sent, at its line and column, with the closest tool declared', async () => {
    const answer = await server.run({
      code: 'await tools["recorder__echo"]({ text: "sent first" });\nreturn await tools["recorder__ecko"]({ text: "never" });',
    });
    expect(answer.isError).toBe(true);
    const text = textOf(answer);
    expect(text).toMatch(
      /^Refused by the type check; nothing ran\. 1 problem in the script:\nscript:2:20: tools\["recorder__ecko"\] is not a tool\. Did you mean "recorder__echo"\?\n/,
    );
    expect(text).toContain('tools["recorder__echo"](args: {');
    expect(structuredOf(answer)).toMatchObject({
      refused: 'Refused by the type check; nothing ran. 1 problem in the script:',
      diagnostics: [{ line: 2, column: 20, tool: 'recorder__echo' }],
    });
    // No script was started: the answer names none.
    expect(structuredOf(answer).script).toBeUndefined();
    expect(callsIn(recordFile)).toEqual([]);
  });

  test('a missing required argument: refused, pointing at the arguments, with the tool declared', async () => {
    const answer = await server.run({ code: 'const r = await tools["recorder__echo"]({});\nreturn r.content[0].text;' });
    expect(answer.isError).toBe(true);
    expect(textOf(answer)).toContain(
      "script:1:41: Property 'text' is missing in type '{}' but required in type 'Input_recorder__echo'.",
    );
    expect(textOf(answer)).toContain('tools["recorder__echo"](args: {');
    expect(callsIn(recordFile)).toEqual([]);
  });

  test("a misspelled field of a tool's structured result: refused before the call above it is sent", async () => {
    const answer = await server.run({
      code: [
        'await tools["recorder__echo"]({ text: "sent first" });',
        'const w = await tools["everything__get-structured-content"]({ location: "Chicago" });',
        'return w.structuredContent.temprature;',
      ].join('\n'),
    });
    expect(answer.isError).toBe(true);
    expect(textOf(answer)).toContain(
      "script:3:28: Property 'temprature' does not exist on type 'Output_everything__get_structured_content'. Did you mean 'temperature'?",
    );
    expect(textOf(answer)).toContain('tools["everything__get-structured-content"](args: {');
    expect(callsIn(recordFile)).toEqual([]);
  });

  test('a script that is right runs as before, and its calls reach the upstream', async () => {
    const answer = await server.run({
      code: [
        'const w = await tools["everything__get-structured-content"]({ location: "Chicago" });',
        'const said = (await tools["recorder__echo"]({ text: "ran" })).content[0].text;',
        'return { said, hot: w.structuredContent.temperature > 100 };',
      ].join('\n'),
    });
    expect(answer.isError).toBe(false);
    expect(valueOf(answer)).toEqual({ said: 'ran', hot: expect.any(Boolean) as boolean });
    expect(callsIn(recordFile)).toMatchObject([{ tool: 'echo', args: { text: 'ran' } }]);
  });
});

describe('the typeCheck modes, in front of the recorder', () => {
  // A misspelled global on a line that never runs: the check finds it, the run never reaches it.
  const wrong = 'await tools.echo({ text: "sent" });\nif (Date.now() < 0) consol.log("never");\nreturn "ran";';

  test('warn runs a script with a problem, and its answer says what the check found', async () => {
    const { config, recordFile } = recorderSetup('type-check-warn');
    const server = await startInProcess(['--config', config, '--type-check', 'warn', ...AMPLE_TIME]);
    try {
      const answer = await server.run({ code: wrong });
      expect(valueOf(answer)).toBe('ran');
      expect(textOf(answer)).toMatch(
        /\nThe type check found 1 problem \(typeCheck is "warn", so the script ran\):\nscript:2:21: Cannot find name 'consol'\. Did you mean 'console'\?/,
      );
      expect(structuredOf(answer).typeCheck).toMatch(/^The type check found 1 problem/);
      expect(callsIn(recordFile)).toMatchObject([{ tool: 'echo', args: { text: 'sent' } }]);
    } finally {
      expect(await server.close()).toEqual([]);
    }
  });

  test('off runs it and says nothing of types', async () => {
    const { config, recordFile } = recorderSetup('type-check-off');
    const server = await startInProcess(['--config', config, '--type-check', 'off']);
    try {
      const answer = await server.run({ code: wrong });
      expect(valueOf(answer)).toBe('ran');
      expect(textOf(answer)).not.toContain('type check');
      expect(structuredOf(answer).typeCheck).toBeUndefined();
      expect(callsIn(recordFile)).toMatchObject([{ tool: 'echo', args: { text: 'sent' } }]);
    } finally {
      expect(await server.close()).toEqual([]);
    }
  });

  test('error (the default) refuses it, and `// @ts-nocheck` on its first line lets it run', async () => {
    const { config, recordFile } = recorderSetup('type-check-error');
    const server = await startInProcess(['--config', config, ...AMPLE_TIME]);
    try {
      const refused = await server.run({ code: wrong });
      expect(refused.isError).toBe(true);
      expect(textOf(refused)).toMatch(/^Refused by the type check; nothing ran\./);
      expect(callsIn(recordFile)).toEqual([]);
      expect(valueOf(await server.run({ code: `// @ts-nocheck\n${wrong}` }))).toBe('ran');
      expect(callsIn(recordFile)).toHaveLength(1);
    } finally {
      expect(await server.close()).toEqual([]);
    }
  });
});

describe('skills, checked when saved and when called', () => {
  test('a save the check refuses writes nothing; a skill edited by hand into one it refuses is not run, and its call sends nothing', async () => {
    const { config, recordFile } = recorderSetup('type-check-skills');
    const dir = join(makeTempDir('type-check-skills'), 'skills');
    const server = await startInProcess(['--config', config, '--skills-dir', dir, ...AMPLE_TIME]);
    const save = (code: string) =>
      server.run({
        code: `try {
  return await skills.save({
    name: "shout",
    description: "Says it loud",
    inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
    code: ${JSON.stringify(code)},
  });
} catch (error) { return error.name + ": " + error.message; }`,
      });
    try {
      expect(valueOf(await save('return (await tools.echo({ txt: input.text })).content[0].text;'))).toMatch(
        /^ToolRefused: SKILL_TYPE_CHECK: skill "shout" was not saved \(nothing was written\): Refused by the type check\. 1 problem in the skill:\nskill:1:26: Property 'text' is missing in type '\{ txt: string; \}'/,
      );
      expect(valueOf(await save('return (await tools.echo({ text: input.text.toUpperCase() })).content[0].text;'))).toMatchObject(
        {
          name: 'shout',
        },
      );
      const call =
        'try { return await skills.shout({ text: "hey" }); } catch (error) { return error.name + ": " + error.message; }';
      expect(valueOf(await server.run({ code: call }))).toBe('HEY');
      writeFileSync(join(dir, 'shout', 'skill.ts'), 'return (await tools.echo({ txt: input.text })).content[0].text;');
      expect(valueOf(await server.run({ code: call }))).toMatch(
        /^ToolRefused: SKILL_TYPE_CHECK: skill "shout" was not run: Refused by the type check\. 1 problem in the skill:\nskill:1:26: Property 'text' is missing in type '\{ txt: string; \}'/,
      );
      // Described, it is read as it is: describing runs nothing.
      expect(valueOf(await server.run({ code: 'return (await skills.describe("shout")).code;' }))).toContain(
        '{ txt: input.text }',
      );
      expect(callsIn(recordFile)).toMatchObject([{ tool: 'echo', args: { text: 'HEY' } }]);
    } finally {
      expect(await server.close()).toEqual([]);
    }
  });
});

describe('every way a script runs goes through the same check', () => {
  test('a 2026-07-28 caller over stdio is refused the same, nothing sent', async () => {
    const { config, recordFile } = recorderSetup('type-check-2026');
    const server = await startInProcess(['--config', config, ...AMPLE_TIME], {
      versionNegotiation: { mode: { pin: '2026-07-28' } },
    });
    try {
      expect(server.client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
      const answer = await server.run({ code: WRONG_NAME });
      expect(answer.isError).toBe(true);
      expect(textOf(answer)).toMatch(WRONG_NAME_REFUSAL);
      expect(callsIn(recordFile)).toEqual([]);
    } finally {
      expect(await server.close()).toEqual([]);
    }
  });

  test('over HTTP, a 2025 session and a 2026-07-28 caller are each refused, nothing sent, and a right script runs', async () => {
    const { config, recordFile } = recorderSetup('type-check-http');
    const server = await startInProcessHttp(['--config', config, ...AMPLE_TIME]);
    const session = await connectHttp(server.url, { name: 'session' });
    const sessionless = await connectHttp(server.url, {
      name: 'sessionless',
      versionNegotiation: { mode: { pin: '2026-07-28' } },
    });
    try {
      expect(session.client.getNegotiatedProtocolVersion()).not.toBe('2026-07-28');
      expect(sessionless.client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
      for (const client of [session, sessionless]) {
        const answer = await client.run({ code: WRONG_NAME });
        expect(answer.isError).toBe(true);
        expect(textOf(answer)).toMatch(WRONG_NAME_REFUSAL);
      }
      expect(callsIn(recordFile)).toEqual([]);
      expect(valueOf(await sessionless.run({ code: 'return (await tools.echo({ text: "right" })).content[0].text;' }))).toBe(
        'right',
      );
      expect(callsIn(recordFile)).toMatchObject([{ tool: 'echo', args: { text: 'right' } }]);
    } finally {
      await session.close();
      await sessionless.close();
      expect((await server.stop()).left).toEqual([]);
    }
  });

  test('`codemode-mcp run` prints the refusal, exits 2, and sends nothing', async () => {
    const { config, recordFile } = recorderSetup('type-check-run');
    const script = join(makeTempDir('type-check-run-script'), 'wrong.js');
    writeFileSync(script, WRONG_NAME);
    const { stdout, exitCode, left } = await runInProcess(['run', script, '--config', config, ...AMPLE_TIME]);
    expect(stdout).toMatch(WRONG_NAME_REFUSAL);
    expect(exitCode).toBe(RUN_EXIT.refused);
    expect(left).toEqual([]);
    expect(callsIn(recordFile)).toEqual([]);
  });
});

describe('a script whose check costs too much', () => {
  test('is refused with nothing run once its own check passes typeCheckTimeoutMs or the memory, while the server answers meanwhile', async () => {
    const { config, recordFile } = recorderSetup('type-check-hostile');
    const server = await startInProcess(['--config', config, '--type-check-timeout-ms', '1s']);
    try {
      // The compiler started and the catalog open first: a script whose time goes to that wait runs unchecked, never refused.
      await until(
        'the type check to be ready',
        async () => !textOf(await server.run({ code: 'return 1;' })).includes('Not type-checked'),
      );
      // A union of a hundred million members: its check takes far longer than a second, or more memory than the compiler has.
      const code = [
        'type D = "0" | "1" | "2" | "3" | "4" | "5" | "6" | "7" | "8" | "9";',
        'type N4 = `${D}${D}${D}${D}`;',
        'type Pairs = { [K in N4]: { [J in N4]: [K, J] }[N4] }[N4];',
        'const p: Pairs = ["0000", "0000"];',
        'return (await tools.echo({ text: p.join("-") })).content[0].text;',
      ].join('\n');
      const running = server.run({ code });
      expect((await server.run({ action: 'list' })).isError).toBe(false);
      const answer = await running;
      expect(answer.isError).toBe(true);
      expect(textOf(answer)).toMatch(
        /^Refused by the type check; nothing ran: the check of its types (took longer than 1 s \(typeCheckTimeoutMs\)|needed more than the compiler's 256 MiB of memory)\. Simplify its types .*`\/\/ @ts-nocheck` on the script's first line to run it unchecked\.$/,
      );
      expect(structuredOf(answer).script).toBeUndefined();
      expect(callsIn(recordFile)).toEqual([]);
      // The compiler it overran was stopped; a new one checks the next script.
      expect(textOf(await server.run({ code: 'return (await tools.echo({ txt: "x" })).content;' }))).toMatch(
        /^Refused by the type check; nothing ran\. 1 problem in the script:/,
      );
    } finally {
      expect(await server.close()).toEqual([]);
    }
  });
});
