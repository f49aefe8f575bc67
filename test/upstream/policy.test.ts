import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { ToolRefusedError } from '../../src/errors.js';
import { UpstreamHub } from '../../src/upstream/hub.js';
import { childPidsOf } from '../support/processes.js';
import { fixture, readRecord, textOf } from './specs.js';

let hub: UpstreamHub | undefined;
let dir: string | undefined;

afterEach(async () => {
  await hub?.close();
  hub = undefined;
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  expect(childPidsOf(process.pid)).toEqual([]);
});

describe('a denied tool', () => {
  test('stays in the catalog marked not allowed, and a call to it is refused before it reaches the upstream', async () => {
    dir = mkdtempSync(join(tmpdir(), 'codemode-policy-'));
    const record = join(dir, 'calls.jsonl');
    hub = new UpstreamHub([fixture('rec', 'recorder.mjs', { env: { RECORD_FILE: record }, policy: { deny: ['sec*'] } })], { log: () => {} });
    await hub.start();
    expect(hub.tools().find((tool) => tool.name === 'secret')).toMatchObject({ allowed: false, server: 'rec' });
    expect(hub.tools().find((tool) => tool.name === 'echo')).toMatchObject({ allowed: true });

    const refusal = await hub.callTool('secret', {}).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(ToolRefusedError);
    expect(refusal).toMatchObject({ code: 'TOOL_DENIED', tool: 'secret' });
    expect((refusal as Error).message).toBe(
      'TOOL_DENIED: secret was refused: the config does not allow tool "secret" of upstream "rec". Nothing was sent; it is safe to retry later.',
    );

    expect(textOf(await hub.callTool('echo', { text: 'hi' }))).toBe('hi');
    const calls = readRecord(record).filter((entry) => entry.event === 'call');
    expect(calls.map((entry) => entry.tool)).toEqual(['echo']);
  });

  test('a name no tool has is refused as unknown', async () => {
    hub = new UpstreamHub([fixture('rec', 'recorder.mjs')], { log: () => {} });
    await hub.start();
    await expect(hub.callTool('no-such-tool', {})).rejects.toMatchObject({ code: 'TOOL_UNKNOWN', tool: 'no-such-tool' });
  });
});
