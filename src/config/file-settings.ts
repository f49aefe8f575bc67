import { homedir } from 'node:os';
import { dirname } from 'node:path';
import { ConfigError } from './config-error.js';
import { describeFileIssue, readSettingsObject } from './read-settings.js';
import type { SettingLayer } from './settings.js';

/**
 * The config file's `settings` object, every field read (a relative path taken from the file's
 * directory), the first bad one throwing `ConfigError`.
 */
export function readFileSettings(raw: unknown, file: string | null): SettingLayer {
  if (raw === undefined) return { settings: {}, logging: {} };
  const read = readSettingsObject(raw, { baseDir: file === null ? process.cwd() : dirname(file), home: homedir() });
  if ('issue' in read) throw new ConfigError(file, describeFileIssue(read.issue));
  return read.layer;
}
