/**
 * The user's directories for the server's files, by the platform's convention: `config` for what
 * the user keeps (sign-ins), `data` for what the user makes (skills), `cache` for what may be
 * deleted any time (the compile cache). XDG_CONFIG_HOME / XDG_DATA_HOME / XDG_CACHE_HOME when set;
 * otherwise `~/.config`, `~/.local/share` and `~/.cache` on Linux and other Unix,
 * `~/Library/Application Support` (config and data) and `~/Library/Caches` on macOS, `%APPDATA%`
 * (config and data) and `%LOCALAPPDATA%` on Windows. Each with `codemode-mcp` under it.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';

const CONVENTIONS = {
  config: { xdg: 'XDG_CONFIG_HOME', unix: '.config', darwin: 'Application Support', windows: ['APPDATA', 'Roaming'] },
  data: { xdg: 'XDG_DATA_HOME', unix: '.local/share', darwin: 'Application Support', windows: ['APPDATA', 'Roaming'] },
  cache: { xdg: 'XDG_CACHE_HOME', unix: '.cache', darwin: 'Caches', windows: ['LOCALAPPDATA', 'Local'] },
} as const;

export function userDirectory(
  kind: keyof typeof CONVENTIONS,
  env: Readonly<Record<string, string | undefined>> = process.env,
  platform: NodeJS.Platform = process.platform,
): string {
  const convention = CONVENTIONS[kind];
  const xdg = env[convention.xdg];
  if (xdg !== undefined && xdg !== '') return join(xdg, 'codemode-mcp');
  if (platform === 'win32') {
    const [variable, folder] = convention.windows;
    return join(env[variable] ?? join(homedir(), 'AppData', folder), 'codemode-mcp');
  }
  if (platform === 'darwin') return join(homedir(), 'Library', convention.darwin, 'codemode-mcp');
  return join(homedir(), convention.unix, 'codemode-mcp');
}
