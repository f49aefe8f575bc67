// Behind a load balancer (--instance-id), a 2026-07-28 client's run whose script asks for input
// before its first answer answers `running` with the script's id, and the question comes on the
// wait, which routes to the script's instance by Mcp-Param-Script (a retry of the run would not).
import type { ElicitRequest } from '@modelcontextprotocol/client';
import { afterAll, expect, test } from 'vitest';
import { connectHttp } from '../support/http-server.js';
import { startInProcessHttp, type InProcessHttpServer } from '../support/in-process-http.js';
import { fixturePath, structuredOf } from '../support/mcp-client.js';

let server: InProcessHttpServer | undefined;
afterAll(async () => {
  if (server !== undefined) expect((await server.stop()).left).toEqual([]);
});

test('a run asked for input answers running; its wait carries the question and the answer', async () => {
  server = await startInProcessHttp([
    '--instance-id',
    'a',
    '--pool',
    '0',
    '--',
    process.execPath,
    fixturePath('upstreams/conformance-everything.mjs'),
  ]);
  const asked: ElicitRequest['params'][] = [];
  const client = await connectHttp(server.url, {
    capabilities: { elicitation: { form: {} } },
    versionNegotiation: { mode: { pin: '2026-07-28' } },
    onElicit: (request) => {
      asked.push(request.params);
      return { action: 'accept', content: { username: 'ada', email: 'ada@example.com' } };
    },
  });
  const ran = structuredOf(
    await client.run({ code: 'return (await tools["test_elicitation"]({ message: "Name?" })).content[0].text' }),
  );
  // The instance's prefix routes the wait; the number counts the scripts this process started (others' too, in process).
  expect(ran).toMatchObject({ status: 'running', script: expect.stringMatching(/^a\.[0-9a-f]{6}-\d+$/) });
  expect(asked).toEqual([]);
  const waited = structuredOf(await client.run({ action: 'wait', script: ran.script }));
  expect(asked.map((params) => (params as { message: string }).message)).toEqual(['Name?']);
  expect(waited).toMatchObject({ status: 'finished', value: expect.stringContaining('User response: action=accept') });
  await client.close();
});
