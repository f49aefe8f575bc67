import { expect, test } from 'vitest';
import { HubEvents } from '../../src/upstream/hub-events.js';

test('a listener hears its event until it unsubscribes; one that throws is logged, and the others still hear', () => {
  const lines: string[] = [];
  const events = new HubEvents((line) => lines.push(line));
  const heard: string[] = [];
  events.on('notice', () => {
    throw new Error('listener broke');
  });
  const stop = events.on('notice', (notice) => heard.push(notice.kind));
  events.on('catalog-changed', (detail) => heard.push(`catalog ${String(detail)}`));
  events.emit('notice', { kind: 'prompts_changed' });
  events.emit('catalog-changed', undefined);
  stop();
  events.emit('notice', { kind: 'offered_changed' });
  expect(heard).toEqual(['prompts_changed', 'catalog undefined']);
  expect(lines).toHaveLength(2);
  expect(lines[0]).toMatch(/^codemode-mcp: a listener of the upstreams failed: Error: listener broke/);
});
