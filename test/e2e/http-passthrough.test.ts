/**
 * The passthrough over --http: several sessions share the upstreams, and a resource's update goes
 * only to the sessions that subscribed to it.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { connectHttp, type HttpClient } from '../support/http-server.js';
import { startInProcessHttp, type InProcessHttpServer } from '../support/in-process-http.js';
import { fixturePath, nodeEntry, writeConfig } from '../support/mcp-client.js';
import { until } from '../upstream/specs.js';

let server: InProcessHttpServer;
const sessions: HttpClient[] = [];

beforeAll(async () => {
  // No script runs here: no pool.
  server = await startInProcessHttp([
    '--pool',
    '0',
    '--config',
    writeConfig({ conf: nodeEntry(fixturePath('upstreams/conformance-everything.mjs')) }),
  ]);
});

afterAll(async () => {
  for (const session of sessions.splice(0)) await session.close();
  expect((await server.stop()).left).toEqual([]);
});

async function sessionHearing(updates: string[]): Promise<HttpClient> {
  const session = await connectHttp(server.url);
  sessions.push(session);
  session.client.setNotificationHandler(
    'notifications/resources/updated',
    (notification) => void updates.push(notification.params.uri),
  );
  return session;
}

test("an upstream's resource update reaches the sessions that subscribed to that URI, and no other", async () => {
  const heardByA: string[] = [];
  const heardByB: string[] = [];
  const a = await sessionHearing(heardByA);
  const b = await sessionHearing(heardByB);
  // The fixture sends an update for a URI as soon as it is subscribed to.
  await a.client.subscribeResource({ uri: 'test://static-text' });
  await until(() => heardByA.includes('test://static-text'));
  await b.client.subscribeResource({ uri: 'test://static-binary' });
  await until(() => heardByB.includes('test://static-binary'));
  // Both subscribe to one URI: the upstream is asked once, at the first, so no second update comes.
  await a.client.subscribeResource({ uri: 'test://watched-resource' });
  await until(() => heardByA.includes('test://watched-resource'));
  await b.client.subscribeResource({ uri: 'test://watched-resource' });
  expect(heardByA).toEqual(['test://static-text', 'test://watched-resource']);
  expect(heardByB).toEqual(['test://static-binary']);
});
