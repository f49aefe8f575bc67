/**
 * Settings that are each in range but can't hold together: the default yield past its own cap, a
 * pool past the child cap, a state value past the state's whole, state kept both in a directory
 * and in Redis. The rules are data, so a form that asks for one of them (the .mcpb bundle's,
 * bundle-questions.ts) can offer only what holds beside the others.
 */
import { LOCATION_SETTINGS, SETTINGS, formatSettingValue, type SettingName, type Settings } from './settings.js';
import type { SettingIssue } from './setting-spec.js';

/** `lower` must not be past `upper`; `why` ends the refusal. */
interface AtMostRule {
  readonly lower: SettingName;
  readonly upper: SettingName;
  readonly why: string;
}

export const AT_MOST_RULES: readonly AtMostRule[] = [
  { lower: 'yieldMs', upper: 'maxYieldMs', why: '' },
  { lower: 'pool', upper: 'maxScriptChildren', why: ', which counts pooled children' },
  { lower: 'stateValueMaxBytes', upper: 'stateMaxBytes', why: ', which holds every value' },
];

type LocationName = keyof typeof LOCATION_SETTINGS;

/** At most one of `names` may be set; `why` ends the refusal. */
export const ONE_OF_RULES: readonly { readonly names: readonly [LocationName, LocationName]; readonly why: string }[] = [
  {
    names: ['stateDir', 'stateUrl'],
    why: "each say where scripts' state is kept; set one of them: a directory for one server, a Redis URL for several",
  },
];

/** `yieldMs (--yield-ms, 20 min)`. */
function named(name: SettingName, value: number): string {
  const spec = SETTINGS[name];
  return `${name} (--${spec.flag}, ${formatSettingValue(spec, value)})`;
}

/** The first rule the settings break, or null. */
export function checkSettingsTogether(settings: Settings): SettingIssue | null {
  for (const { lower, upper, why } of AT_MOST_RULES) {
    if (settings[lower] > settings[upper]) {
      return {
        path: [],
        code: 'SETTING_INVALID',
        message: `${named(lower, settings[lower])} must not be past ${named(upper, settings[upper])}${why}`,
      };
    }
  }
  for (const { names, why } of ONE_OF_RULES) {
    if (names.every((name) => settings[name] !== null)) {
      const [a, b] = names.map((name) => `${name} (--${LOCATION_SETTINGS[name].flag})`);
      return { path: [], code: 'SETTING_INVALID', message: `${a} and ${b} ${why}` };
    }
  }
  return null;
}

/** The values of a number setting that hold beside `others` (the rest of the settings as they stand): its range, narrowed by the rules. */
export function boundsBeside(name: SettingName, others: Settings): { min: number; max: number } {
  const spec = SETTINGS[name];
  let { min, max } = spec;
  for (const rule of AT_MOST_RULES) {
    if (rule.lower === name) max = Math.min(max, others[rule.upper]);
    if (rule.upper === name) min = Math.max(min, others[rule.lower]);
  }
  return { min, max };
}
