import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The tests drive the built server and engine: make sure a build exists (npm test builds first). */
export default function setup(): void {
  const engineMain = fileURLToPath(new URL('../../dist/engine/main.js', import.meta.url));
  if (!existsSync(engineMain)) {
    throw new Error(`no build at ${engineMain}: run "npm run build" (npm test does it for you)`);
  }
}
