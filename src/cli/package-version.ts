import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const PACKAGE_NAME = 'codemode-mcp';

/**
 * The version in codemode-mcp's package.json, found by walking up from `fromUrl` (this module,
 * whether it runs from src/ or dist/) to the nearest package.json named codemode-mcp; other
 * package.json files on the way (a `{"type": "module"}` marker, say) are passed over.
 */
export function readPackageVersion(fromUrl: string = import.meta.url): string {
  const start = dirname(fileURLToPath(fromUrl));
  for (let dir = start; ; dir = dirname(dir)) {
    const pkg = readPackageJson(join(dir, 'package.json'));
    if (pkg?.name === PACKAGE_NAME && typeof pkg.version === 'string') return pkg.version;
    if (dirname(dir) === dir) break;
  }
  throw new Error(`no package.json named ${PACKAGE_NAME} above ${start}: the installation is incomplete`);
}

function readPackageJson(file: string): { name?: unknown; version?: unknown } | null {
  try {
    const value: unknown = JSON.parse(readFileSync(file, 'utf8'));
    return value !== null && typeof value === 'object' ? value : null;
  } catch {
    return null; // absent or not JSON: not ours, keep walking
  }
}
