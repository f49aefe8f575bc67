import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The package's root: the nearest folder above this module whose package.json is codemode-mcp's. */
function findPackageRoot(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === 'codemode-mcp') {
      return dir;
    }
    if (dirname(dir) === dir) throw new Error(`no package.json of codemode-mcp above ${from}`);
  }
}

/** Whether the server runs from dist/ or from source, the folder its built programs are found from. */
export const PACKAGE_ROOT = findPackageRoot(dirname(fileURLToPath(import.meta.url)));
