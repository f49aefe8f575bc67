/**
 * One setting, defined once: its config-file field and its flag, its default, its zod schema (which
 * reads the file's value and the flag's alike), and its words for --help and the README. The
 * kinds (setting-kinds.ts) build these; settings.ts lists every one.
 */
import type { z } from 'zod';
import type { ConfigPath } from './config-error.js';
import type { SettingUnit } from './setting-units.js';
import type { VariableSource } from './types.js';

/**
 * Where a relative path is taken from (the config file's directory, or the working directory for a
 * flag), what `~` is, and where `${VAR}` is looked up (the server's environment).
 */
export interface ReadPlace {
  readonly baseDir: string;
  readonly home: string;
  readonly env: VariableSource;
}

export type SettingIssueCode = 'SETTING_INVALID' | 'SETTING_UNKNOWN';

/**
 * What is wrong with a setting, as data: where, from the setting's name (`["expose", 1]`; empty for
 * settings that clash, which the message names), and what, phrased to follow the place
 * ("must be true or false (got string)"). describeFileIssue and describeFlagIssue put it in words.
 */
export interface SettingIssue {
  readonly path: ConfigPath;
  readonly code: SettingIssueCode;
  readonly message: string;
}

export type SettingKind = 'number' | 'switch' | 'choice' | 'globs' | 'approvals' | 'path' | 'url' | 'fetch' | 'tokenize';

export interface SettingSpec<T = unknown> {
  readonly kind: SettingKind;
  /** The field of the config file's `settings` object. */
  readonly name: string;
  /** The CLI flag, without its dashes. */
  readonly flag: string;
  /** The flag's value in --help (`<duration>`, `<dir>`); null for a switch, which takes none and turns the setting on. */
  readonly placeholder: string | null;
  /** The flag may be given again, each adding to a list; the flags' list replaces the file's. */
  readonly repeatable: boolean;
  /** The flag takes the file's value as JSON, so a problem's place inside it is the user's to read (`fetch["https://x"].methods[0]`). */
  readonly flagIsJson?: boolean;
  /** Which part of the server reads it: its settings, or its log (src/support/log.ts). */
  readonly layer: 'settings' | 'logging';
  readonly default: T;
  /** The default, as --help shows it. */
  readonly defaultText: string;
  /** The default, as the README's table shows it (markdown). */
  readonly defaultMarkdown: string;
  /** The values it takes, for the README's table (markdown). */
  readonly rangeMarkdown: string;
  /** What it does and what happens past it, in one line for --help. */
  readonly doc: string;
  /** The same, as the README's table says it (markdown, links welcome). */
  readonly details: string;
  /** The config file's value checked and read (a path resolved from `place`); a flag's too, once flagValue made it one. */
  schema(place: ReadPlace): z.ZodType<T>;
  /** The flag's values as typed (none for a switch) as the config file would hold them, or what is wrong with them. */
  flagValue(texts: readonly string[]): { readonly raw: unknown } | { readonly message: string };
}

export interface NumberSettingSpec extends SettingSpec<number> {
  readonly kind: 'number';
  readonly unit: SettingUnit;
  readonly min: number;
  readonly max: number;
}

export function isNumberSetting(spec: SettingSpec): spec is NumberSettingSpec {
  return spec.kind === 'number';
}
