/**
 * Every setting of the server, each defined once as a spec (setting-spec.ts): its config-file field
 * and its flag, default, range and words. From these come the config file's `settings` schema
 * (read-settings.ts), the flags and --help (src/cli/program.ts), the defaults below, the README's
 * settings table (settings-table.ts) and the .mcpb bundle's questions (bundle-questions.ts).
 */
import type { LogSettings } from '../support/log.js';
import {
  APPROVALS_SETTING,
  APPROVAL_FALLBACK_SETTING,
  APPROVAL_OPEN_BROWSER_SETTING,
  APPROVAL_PAGE_URL_SETTING,
  APPROVAL_VIA_SETTING,
  EXPOSE_SETTING,
  FETCH_SETTING,
  SKILLS_SAVE_SETTING,
  SWITCH_SETTINGS,
  TYPE_CHECK_SETTING,
} from './feature-settings.js';
import { SETTINGS } from './limit-settings.js';
import { LOCATION_SETTINGS, LOG_SETTINGS } from './place-settings.js';
import type { SettingSpec } from './setting-spec.js';
import { TOKENIZE_SETTING } from './tokenize-setting.js';

export { SETTINGS } from './limit-settings.js';
export { LOCATION_SETTINGS, LOG_SETTINGS } from './place-settings.js';
export { SWITCH_SETTINGS, type ApprovalFallback, type ApprovalVia, type TypeCheckMode } from './feature-settings.js';
export { formatSettingValue } from './setting-units.js';
export type { NumberSettingSpec, SettingSpec } from './setting-spec.js';

/** The server's settings by name; the log's are LOG_SETTINGS. */
const SERVER_SETTINGS = {
  ...SETTINGS,
  expose: EXPOSE_SETTING,
  skillsSaveOverHttp: SKILLS_SAVE_SETTING,
  approvals: APPROVALS_SETTING,
  approvalFallback: APPROVAL_FALLBACK_SETTING,
  approvalVia: APPROVAL_VIA_SETTING,
  approvalOpenBrowser: APPROVAL_OPEN_BROWSER_SETTING,
  approvalPageUrl: APPROVAL_PAGE_URL_SETTING,
  fetch: FETCH_SETTING,
  tokenize: TOKENIZE_SETTING,
  typeCheck: TYPE_CHECK_SETTING,
  ...SWITCH_SETTINGS,
  ...LOCATION_SETTINGS,
};

/** Every setting, in the order --help, the README and a refusal listing them all show them. */
export const ALL_SETTINGS: readonly SettingSpec[] = [
  ...Object.values(SETTINGS),
  EXPOSE_SETTING,
  SKILLS_SAVE_SETTING,
  APPROVALS_SETTING,
  APPROVAL_FALLBACK_SETTING,
  APPROVAL_VIA_SETTING,
  APPROVAL_OPEN_BROWSER_SETTING,
  APPROVAL_PAGE_URL_SETTING,
  FETCH_SETTING,
  TOKENIZE_SETTING,
  TYPE_CHECK_SETTING,
  ...Object.values(SWITCH_SETTINGS),
  ...Object.values(LOG_SETTINGS),
  ...Object.values(LOCATION_SETTINGS),
];

/** The number settings' names. */
export type SettingName = keyof typeof SETTINGS;

type ValueOf<S> = S extends SettingSpec<infer T> ? T : never;

/**
 * What the server runs with: each setting's value, from the defaults, the config file and the
 * flags. A path is absolute; null where a location setting is not set.
 */
export type Settings = { readonly [K in keyof typeof SERVER_SETTINGS]: ValueOf<(typeof SERVER_SETTINGS)[K]> };

/** What one layer sets (the config file's `settings`, or the flags): the server's settings and the log's. */
export interface SettingLayer {
  readonly settings: Partial<Settings>;
  readonly logging: Partial<LogSettings>;
}

export const DEFAULT_SETTINGS: Settings = Object.fromEntries(
  Object.values<SettingSpec>(SERVER_SETTINGS).map((spec) => [spec.name, spec.default]),
) as Settings;
