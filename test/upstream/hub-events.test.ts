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

// Regression: 20 sessions over HTTP printed MaxListenersExceededWarning, each listening for notices.
test('takes a listener per connection, hundreds of them, with no warning of a leak', async () => {
  const warnings: Error[] = [];
  const onWarning = (warning: Error): void => void warnings.push(warning);
  process.on('warning', onWarning);
  try {
    const events = new HubEvents(() => {});
    const stops = Array.from({ length: 200 }, () => events.on('notice', () => {}));
    events.emit('notice', { kind: 'offered_changed' });
    for (const stop of stops) stop();
    // Warnings are emitted on the next turn.
    await new Promise((resolve) => setImmediate(resolve));
    expect(warnings.map((warning) => warning.name)).not.toContain('MaxListenersExceededWarning');
  } finally {
    process.off('warning', onWarning);
  }
});
