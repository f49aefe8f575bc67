/**
 * Where sign-ins are kept: `$XDG_CONFIG_HOME/codemode-mcp/auth/` when XDG_CONFIG_HOME is set;
 * otherwise `~/.config/codemode-mcp/auth/` on Linux and other Unix, `~/Library/Application
 * Support/codemode-mcp/auth/` on macOS, `%APPDATA%\codemode-mcp\auth\` on Windows.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';

export function authDirectory(
  env: Readonly<Record<string, string | undefined>> = process.env,
  platform: NodeJS.Platform = process.platform,
): string {
  const xdg = env.XDG_CONFIG_HOME;
  if (xdg !== undefined && xdg !== '') return join(xdg, 'codemode-mcp', 'auth');
  if (platform === 'win32') return join(env.APPDATA ?? join(homedir(), 'AppData', 'Roaming'), 'codemode-mcp', 'auth');
  if (platform === 'darwin') return join(homedir(), 'Library', 'Application Support', 'codemode-mcp', 'auth');
  return join(homedir(), '.config', 'codemode-mcp', 'auth');
}
