/**
 * The real server over stdio, given script text that broke or stalled its type stripping when
 * that ran in the server: each such script ends alone (failed with its position, or stopped),
 * and the server goes on answering the same client.
 */
import { afterEach, expect, test } from 'vitest';
import { structuredOf, textOf, valueOf } from '../support/mcp-client.js';
import { startInProcess, type InProcessServer } from '../support/in-process-server.js';
import { recorderConfig } from '../support/recorder.js';

const servers: InProcessServer[] = [];

afterEach(async () => {
  for (const server of servers.splice(0)) expect(await server.close()).toEqual([]);
});

test('a script the stripper fails on fails alone with its position, one it backtracks on holds up no other and stops, and the server serves on', async () => {
  const { config } = recorderConfig('typescript-text');
  const server = await startInProcess(['--config', config, '--pool', '1']);
  servers.push(server);

  const enumName = await server.run({ code: 'enum E { "a\\\nb" }\nreturn E' });
  expect(structuredOf(enumName).status).toBe('failed');
  expect(textOf(enumName)).toMatch(/enum member whose name goes over more than one line[^\n]*\n {4}at script:1:10/);

  const namespace = await server.run({ code: 'const a = 1\n/* c */ namespace N { export const b = 2 }\nreturn N.b' });
  expect(textOf(namespace)).toMatch(/namespaces are not supported[^\n]*\n {4}at script:2:9/);

  const slow = await server.run({ code: `f(${'(a = <T>('.repeat(22)}${')'.repeat(22)})`, yield_ms: 0 });
  expect(structuredOf(slow).status).toBe('running');
  const typed = await server.run({ code: 'const n: number = 2\ninterface I {}\n(() => 0)()\nreturn n * 21' });
  expect(valueOf(typed)).toBe(42);
  const stopped = await server.run({ action: 'stop', script: structuredOf(slow).script });
  expect(structuredOf(stopped).status).toBe('stopped');
});
