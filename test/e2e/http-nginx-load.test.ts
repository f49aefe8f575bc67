/**
 * A small load through nginx in front of three instances (bench/nginx.ts, docs/deploy.md's block),
 * both protocol revisions at once, each client its own principal: every script's run, wait and
 * stop answered, and rightly; every request naming a script or session answered by the instance
 * its id names; every script started shown ended by its instance's own list. The bench
 * (`npm run bench -- nginx-load`) runs the same with more clients and scripts, and measures
 * memory. Skips, saying so, where nginx is missing; .ci/run installs it.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { REVISIONS, checkRouting, driveLoad } from '../../bench/nginx-load.js';
import { INSTANCES, NGINX, startBehindNginx, type BehindNginx, type Instance } from '../../bench/nginx.js';
import { startHttpServer, type HttpServer } from '../support/http-server.js';
import { nodeEntry, publishedEntry, writeConfig } from '../support/mcp-client.js';
import { makeTempDir } from '../support/temp-dirs.js';

const CLIENTS = 4;
const SCRIPTS = 10;
const TOKENS = Array.from({ length: CLIENTS }, (_, n) => `nginx-load-token-${n}-0123456789abcdef`);

if (NGINX === undefined)
  process.stderr.write(
    'http-nginx-load.test.ts: nginx is not installed here (apt-get install nginx); skipping the load through it\n',
  );

const instances: Partial<Record<Instance, HttpServer>> = {};
let cluster: BehindNginx<HttpServer> | undefined;

beforeAll(async () => {
  if (NGINX === undefined) return;
  const config = writeConfig({ everything: nodeEntry(publishedEntry('server-everything')) });
  cluster = await startBehindNginx({
    dir: makeTempDir('nginx-load'),
    auth: { tokens: Object.fromEntries(TOKENS.map((token, n) => [`client-${n}`, token])) },
    // Enough ended scripts kept per principal for its list to show every one.
    start: async (id, flags) =>
      (instances[id] = await startHttpServer(['--config', config, ...flags, '--ended-scripts-kept', String(SCRIPTS * 2)])),
  });
}, 60_000);

afterAll(async () => {
  await cluster?.stopNginx();
  for (const instance of Object.values(instances)) expect((await instance.stop()).left).toEqual([]);
}, 60_000);

test.skipIf(NGINX === undefined)(
  `${CLIENTS} clients × ${SCRIPTS} scripts of each revision at once: none lost, none misrouted, every script accounted for`,
  async () => {
    const direct = Object.fromEntries(INSTANCES.map((id) => [id, instances[id]!.url])) as Record<Instance, string>;
    const tallies = await Promise.all(
      REVISIONS.map((revision) => driveLoad(cluster!.url, direct, { revision, clients: CLIENTS, scripts: SCRIPTS }, TOKENS)),
    );
    // Once nginx has exited, its log holds every request.
    await cluster!.stopNginx();
    for (const tally of tallies) {
      checkRouting(tally, cluster!);
      const { revision } = tally.plan;
      expect({ revision, lost: tally.lost, wrong: tally.wrong, refused: tally.refused }).toEqual({
        revision,
        lost: [],
        wrong: [],
        refused: [],
      });
      expect({ revision, misrouted: tally.misrouted, unaccounted: tally.unaccounted }).toEqual({
        revision,
        misrouted: [],
        unaccounted: [],
      });
      expect(tally.started).toHaveLength(CLIENTS * SCRIPTS);
      expect([tally.answered, tally.finished + tally.stopped]).toEqual([CLIENTS * SCRIPTS, CLIENTS * SCRIPTS]);
      expect(tally.stopped).toBeGreaterThan(0);
      expect(tally.routedChecked).toBeGreaterThanOrEqual(CLIENTS * SCRIPTS);
    }
    // A 2026-07-28 client's runs go round-robin: every instance ran some.
    const modern = tallies.find((tally) => tally.plan.revision === '2026-07-28')!;
    expect(INSTANCES.filter((id) => modern.perInstance[id] === 0)).toEqual([]);
  },
);
