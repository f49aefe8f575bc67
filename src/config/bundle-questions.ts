/**
 * The .mcpb bundle's settings form (mcpb/manifest.template.json's `user_config`): each number
 * question that fills a setting's flag (`--yield-ms ${user_config.yield_seconds}s`) gets its
 * default, min and max from that setting's spec when the bundle is built (build/bundle-mcpb.js),
 * in the unit its flag is given in, and narrowed to what holds beside the settings the bundle
 * leaves at their defaults (settings-together.ts): a form that offers more starts a server that
 * refuses its own command line.
 */
import { DEFAULT_SETTINGS, SETTINGS, type SettingName } from './settings.js';
import { AT_MOST_RULES, boundsBeside } from './settings-together.js';
import { suffixFactor } from './setting-units.js';

export interface BundleQuestion {
  readonly type: string;
  readonly default?: unknown;
  readonly min?: number;
  readonly max?: number;
}

export interface BundleManifest {
  readonly server: { readonly mcp_config: { readonly args: readonly string[] } };
  readonly user_config: Readonly<Record<string, BundleQuestion>>;
}

/** `${user_config.yield_seconds}s`: the question, and the unit its answer is written in. */
const ANSWER = /^\$\{user_config\.(\w+)\}(\w*)$/;

/** The number settings the form asks for: each with its question's key and the unit its answer is given in. */
export function askedSettings(manifest: BundleManifest): { name: SettingName; key: string; suffix: string }[] {
  const { args } = manifest.server.mcp_config;
  return args.flatMap((arg, index) => {
    const name = (Object.keys(SETTINGS) as SettingName[]).find((key) => arg === `--${SETTINGS[key].flag}`);
    const answer = ANSWER.exec(args[index + 1] ?? '');
    return name === undefined || answer === null ? [] : [{ name, key: answer[1]!, suffix: answer[2]! }];
  });
}

/** The manifest with each setting question's default, min and max filled in from the specs. Throws when the form can't be made to fit. */
export function fillSettingQuestions<M extends BundleManifest>(manifest: M): M {
  const asked = askedSettings(manifest);
  const names = new Set(asked.map(({ name }) => name));
  const tied = AT_MOST_RULES.find(({ lower, upper }) => names.has(lower) && names.has(upper));
  if (tied !== undefined) {
    throw new Error(`the bundle asks for both ${tied.lower} and ${tied.upper}, which a form can't tie together; ask for one`);
  }
  const userConfig: Record<string, BundleQuestion> = { ...manifest.user_config };
  for (const { name, key, suffix } of asked) {
    const spec = SETTINGS[name];
    const question = userConfig[key];
    const factor = suffixFactor(spec.unit, suffix);
    if (question?.type !== 'number' || factor === undefined || spec.default % factor !== 0) {
      throw new Error(
        `the bundle's question ${key} fills --${spec.flag}: it must be a number, given in a unit the flag takes that holds its default`,
      );
    }
    const { min, max } = boundsBeside(name, DEFAULT_SETTINGS);
    userConfig[key] = {
      ...question,
      default: spec.default / factor,
      min: Math.ceil(min / factor),
      max: Math.floor(max / factor),
    };
  }
  return { ...manifest, user_config: userConfig };
}
