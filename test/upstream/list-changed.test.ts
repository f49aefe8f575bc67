import { afterEach, describe, expect, test } from 'vitest';
import { UpstreamHub } from '../../src/upstream/hub.js';
import { inMemorySpec, inMemoryUpstreams, namedTools, recorder } from './in-memory.js';
import { collectLog, textOf, until } from './specs.js';

let hub: UpstreamHub | undefined;

afterEach(async () => {
  await hub?.close();
  hub = undefined;
});

describe('an upstream whose tools change', () => {
  test('says so with list_changed: the catalog is re-listed and the change event fires', async () => {
    const upstreams = inMemoryUpstreams(() => recorder());
    hub = new UpstreamHub([inMemorySpec('rec')], { log: () => {}, connect: upstreams.connect });
    await hub.start();
    let changes = 0;
    hub.events.on('catalog-changed', () => changes++);
    expect(hub.catalog().tools.map((tool) => tool.name)).not.toContain('fresh');

    expect(textOf(await hub.callTool('add-tool', { name: 'fresh' }))).toBe('added fresh');
    await until(() => changes > 0);
    expect(changes).toBe(1);
    expect(hub.catalog().tools.find((tool) => tool.name === 'fresh')).toMatchObject({
      server: 'rec',
      description: 'added at run time',
      allowed: true,
    });
    expect(textOf(await hub.callTool('fresh', {}))).toBe('fresh');
  });

  test('a new tool that collides with a name in use is logged and left out; the name keeps its tool', async () => {
    const { lines, log } = collectLog();
    const upstreams = inMemoryUpstreams((name) => (name === 'a' ? recorder() : namedTools('y')));
    hub = new UpstreamHub([inMemorySpec('a'), inMemorySpec('a__x')], { log, connect: upstreams.connect });
    await hub.start();
    await hub.callTool('a__add-tool', { name: 'x__y' });
    const collision =
      'codemode-mcp: NAME_COLLISION: "a__x__y" is both tool "y" of upstream "a__x" and tool "x__y" of upstream "a"; scripts get the first and can\'t call the second';
    await until(() => lines.includes(collision));
    expect(hub.catalog().tools.filter((tool) => tool.name === 'a__x__y')).toEqual([
      expect.objectContaining({ server: 'a__x', upstreamName: 'y' }),
    ]);
    expect(textOf(await hub.callTool('a__x__y', {}))).toBe('y');
  });
});
