import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { ToolRefusedError } from '../../src/support/errors.js';
import { UpstreamHub } from '../../src/upstream/hub.js';
import { fixture, hubPerTest, readRecord, textOf } from './specs.js';
import { makeTempDir } from '../support/temp-dirs.js';

const scratch = hubPerTest();

describe('a denied tool', () => {
  test('stays in the catalog marked not allowed, and a call to it is refused before it reaches the upstream', async () => {
    scratch.dir = makeTempDir('policy');
    const record = join(scratch.dir, 'calls.jsonl');
    scratch.hub = new UpstreamHub(
      [fixture('rec', 'recorder.mjs', { env: { RECORD_FILE: record }, policy: { deny: ['sec*'] } })],
      { log: () => {} },
    );
    await scratch.hub.start();
    expect(scratch.hub.tools().find((tool) => tool.name === 'secret')).toMatchObject({ allowed: false, server: 'rec' });
    expect(scratch.hub.tools().find((tool) => tool.name === 'echo')).toMatchObject({ allowed: true });

    const refusal = await scratch.hub.callTool('secret', {}).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(ToolRefusedError);
    expect(refusal).toMatchObject({ code: 'TOOL_DENIED', tool: 'secret' });
    expect((refusal as Error).message).toBe(
      'TOOL_DENIED: secret was refused: the config does not allow tool "secret" of upstream "rec". Nothing was sent; it is safe to retry later.',
    );

    expect(textOf(await scratch.hub.callTool('echo', { text: 'hi' }))).toBe('hi');
    const calls = readRecord(record).filter((entry) => entry.event === 'call');
    expect(calls.map((entry) => entry.tool)).toEqual(['echo']);
  });

  test('a name no tool has is refused as unknown', async () => {
    scratch.hub = new UpstreamHub([fixture('rec', 'recorder.mjs')], { log: () => {} });
    await scratch.hub.start();
    await expect(scratch.hub.callTool('no-such-tool', {})).rejects.toMatchObject({ code: 'TOOL_UNKNOWN', tool: 'no-such-tool' });
  });
});
