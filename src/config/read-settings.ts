/**
 * The config file's `settings` object, and the flags once made into one: each field checked and
 * read by its setting's zod schema, and the first problem as a SettingIssue.
 */
import type { z } from 'zod';
import { closestName } from '../../common/closest-names.js';
import { valueType } from '../support/echo.js';
import { formatPath } from '../support/value-path.js';
import type { ReadPlace, SettingIssue, SettingSpec } from './setting-spec.js';
import { ALL_SETTINGS, type SettingLayer } from './settings.js';

const BY_NAME = new Map(ALL_SETTINGS.map((spec) => [spec.name, spec]));
const NAMES = ALL_SETTINGS.map((spec) => spec.name);

/**
 * The settings `raw` names, by layer, or its first problem: an unknown name before all else, since
 * it is likelier a typo, then the first bad value in the order `raw` gives them. Each field is read
 * by its own spec's schema: one zod object of every setting cost each start its compile
 * (bench/ANALYSIS.md, "Figures from the code's comments").
 */
export function readSettingsObject(raw: unknown, place: ReadPlace): { layer: SettingLayer } | { issue: SettingIssue } {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    return { issue: { path: [], code: 'SETTING_INVALID', message: `must be an object (got ${valueType(raw)})` } };
  }
  const entries = Object.entries(raw);
  const unknown = entries.find(([name]) => !BY_NAME.has(name));
  if (unknown !== undefined) {
    const guess = closestName(unknown[0], NAMES);
    const hint = guess === null ? '' : ` (did you mean "${guess}"?)`;
    return {
      issue: {
        path: [unknown[0]],
        code: 'SETTING_UNKNOWN',
        message: `is not a setting${hint}; the settings are ${NAMES.join(', ')}`,
      },
    };
  }
  const layers: Record<SettingSpec['layer'], Record<string, unknown>> = { settings: {}, logging: {} };
  for (const [name, value] of entries) {
    const spec = BY_NAME.get(name)!;
    const parsed = spec.schema(place).safeParse(value);
    if (!parsed.success) return { issue: issueOf(name, parsed.error.issues[0]!) };
    layers[spec.layer][name] = parsed.data;
  }
  return { layer: layers as unknown as SettingLayer };
}

/** A zod issue of one setting's value as a SettingIssue: an unknown key inside it (approvals' "confirm") is the place. */
function issueOf(name: string, issue: z.core.$ZodIssue): SettingIssue {
  const path = [name, ...issue.path.map((key) => (typeof key === 'number' ? key : String(key)))];
  if (issue.code === 'unrecognized_keys') path.push(issue.keys[0] ?? '');
  return { path, code: 'SETTING_INVALID', message: issue.message };
}

/** `settings.expose[1] must be a non-empty glob ...`: a problem in the config file, after its name. */
export function describeFileIssue(issue: SettingIssue): string {
  return `${formatPath(['settings', ...issue.path])} ${issue.message}`;
}

/**
 * `SETTING_INVALID: pool (--pool) takes a whole number; got "2s"`: a problem with the flags, or with
 * settings that clash. A flag that takes the file's JSON says where inside it (`fetch["https://x"].methods[0] (--fetch)`).
 */
export function describeFlagIssue(issue: SettingIssue): string {
  const name = issue.path[0];
  const spec = name === undefined ? undefined : BY_NAME.get(String(name));
  if (spec === undefined) return `${issue.code}: ${issue.message}`;
  const place = spec.flagIsJson === true ? formatPath(issue.path) : spec.name;
  return `${issue.code}: ${place} (--${spec.flag}) ${issue.message}`;
}

/** The spec of a setting's flag or field name. */
export function settingNamed(name: string): SettingSpec | undefined {
  return BY_NAME.get(name);
}
