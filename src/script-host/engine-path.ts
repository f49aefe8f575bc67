import { join } from 'node:path';
import { PACKAGE_ROOT } from '../support/package-root.js';

/** The engine's bundle (build/bundle-node.js): a script's child runs it, whether the server runs from dist/ or from source. */
export const ENGINE_MAIN = join(PACKAGE_ROOT, 'dist', 'child', 'main.js');
