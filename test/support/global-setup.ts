import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { bundleFixtures } from './fixture-bundles.js';

/** The tests drive the built server and engine: make sure a build exists (npm test builds first); the fixture upstreams are bundled. */
export default async function setup(): Promise<void> {
  for (const bundle of ['../../dist/server/boot.js', '../../dist/server/main.cjs', '../../dist/child/main.js']) {
    const path = fileURLToPath(new URL(bundle, import.meta.url));
    if (!existsSync(path)) throw new Error(`no build at ${path}: run "npm run build" (npm test does it for you)`);
  }
  await bundleFixtures();
}
