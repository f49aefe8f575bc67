import { afterEach, describe, expect, test } from 'vitest';
import { ToolRefusedError } from '../../src/support/errors.js';
import { UpstreamHub } from '../../src/upstream/hub.js';
import { inMemorySpec, inMemoryUpstreams, recorder } from './in-memory.js';
import { textOf } from './specs.js';

let hub: UpstreamHub | undefined;
afterEach(async () => {
  await hub?.close();
  hub = undefined;
});

describe('a denied tool', () => {
  test('stays in the catalog marked not allowed, and a call to it is refused before it reaches the upstream', async () => {
    const calls: string[] = [];
    const upstreams = inMemoryUpstreams(() => recorder(calls));
    hub = new UpstreamHub([inMemorySpec('rec', { deny: ['sec*'] })], { log: () => {}, connect: upstreams.connect });
    await hub.start();
    expect(hub.catalog().tools.find((tool) => tool.name === 'secret')).toMatchObject({ allowed: false, server: 'rec' });
    expect(hub.catalog().tools.find((tool) => tool.name === 'echo')).toMatchObject({ allowed: true });

    const refusal = await hub.callTool('secret', {}).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(ToolRefusedError);
    expect(refusal).toMatchObject({ code: 'TOOL_DENIED', tool: 'secret' });
    expect((refusal as Error).message).toBe(
      'TOOL_DENIED: secret was refused: the config does not allow tool "secret" of upstream "rec". Nothing was sent.',
    );

    expect(textOf(await hub.callTool('echo', { text: 'hi' }))).toBe('hi');
    expect(calls).toEqual(['echo']);
  });

  test('a name no tool has is refused as unknown', async () => {
    const upstreams = inMemoryUpstreams(() => recorder());
    hub = new UpstreamHub([inMemorySpec('rec')], { log: () => {}, connect: upstreams.connect });
    await hub.start();
    await expect(hub.callTool('no-such-tool', {})).rejects.toMatchObject({ code: 'TOOL_UNKNOWN', tool: 'no-such-tool' });
  });
});
