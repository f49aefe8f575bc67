/**
 * Where sign-ins are kept: `$XDG_CONFIG_HOME/codemode-mcp/auth/` when XDG_CONFIG_HOME is set;
 * otherwise `~/.config/codemode-mcp/auth/` on Linux and other Unix, `~/Library/Application
 * Support/codemode-mcp/auth/` on macOS, `%APPDATA%\codemode-mcp\auth\` on Windows.
 */
import { join } from 'node:path';
import { userDirectory } from '../../support/user-directories.js';

export function authDirectory(
  env: Readonly<Record<string, string | undefined>> = process.env,
  platform: NodeJS.Platform = process.platform,
): string {
  return join(userDirectory('config', env, platform), 'auth');
}
