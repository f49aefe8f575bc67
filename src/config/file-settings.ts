import { homedir } from 'node:os';
import { dirname } from 'node:path';
import { ConfigError } from './config-error.js';
import { describeFileIssue, readSettingsObject } from './read-settings.js';
import type { SettingLayer } from './settings.js';
import type { VariableSource } from './types.js';

/**
 * The config file's `settings` object, every field read (a relative path taken from the file's
 * directory, `${VAR}` where a setting expands it from `env`), the first bad one throwing `ConfigError`.
 */
export function readFileSettings(raw: unknown, file: string | null, env: VariableSource): SettingLayer {
  if (raw === undefined) return { settings: {}, logging: {} };
  const read = readSettingsObject(raw, { baseDir: file === null ? process.cwd() : dirname(file), home: homedir(), env });
  if ('issue' in read) throw new ConfigError(file, describeFileIssue(read.issue));
  return read.layer;
}
