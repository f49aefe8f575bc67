import { join } from 'node:path';
import type { Settings } from '../config/settings.js';
import { userDirectory } from '../support/user-directories.js';

/**
 * Where skills are kept: the `skillsDir` setting (`--skills-dir`), else `skills` in the user's data
 * directory: `$XDG_DATA_HOME/codemode-mcp/skills/` when XDG_DATA_HOME is set; otherwise
 * `~/.local/share/codemode-mcp/skills/` on Linux and other Unix, `~/Library/Application
 * Support/codemode-mcp/skills/` on macOS, `%APPDATA%\codemode-mcp\skills\` on Windows.
 */
export function skillsDirectory(
  settings: Pick<Settings, 'skillsDir'>,
  env: Readonly<Record<string, string | undefined>> = process.env,
  platform: NodeJS.Platform = process.platform,
): string {
  return settings.skillsDir ?? join(userDirectory('data', env, platform), 'skills');
}
