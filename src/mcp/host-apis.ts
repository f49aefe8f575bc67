/**
 * Every host API a script reaches, as one object: built once by the command from what it opened
 * (the upstreams, the state store, the skills library, the fetcher), passed down once, and bound to
 * each owner of scripts when that owner's scripts are made. `tools` and `resources` are the
 * upstreams' (the hub routes them); `state`, `skills` and `fetch` keep their rules in their own
 * folders (state-api.ts, skills-api.ts, fetch-api.ts); the type check a run passes first is the
 * checker's (src/typecheck/), one for the process, warmed when the catalog changes. With tokenize
 * on, the tokenizer is one more service here: each principal's tokens (`tokensFor`), which the
 * connections use at the boundary with their client (src/mcp/tokens/). docs/architecture.md,
 * "Host APIs", says what adding an API touches.
 */
import { fetchApi } from '../fetch/fetch-api.js';
import type { Fetcher } from '../fetch/fetcher.js';
import type { ResourceCaller } from '../script-host/apis.js';
import type { OwnerApis } from '../scripts/script-apis.js';
import type { SkillsLibrary } from '../skills/skills-library.js';
import { skillsApi, type SkillCheck, type SkillSaving } from '../skills/skills-api.js';
import type { Settings } from '../config/settings.js';
import { ScriptChecker, refusalOf } from '../typecheck/script-checker.js';
import { stateApi } from '../state/state-api.js';
import type { Principal, StateStore } from '../state/state-store.js';
import type { Log } from '../support/log.js';
import type { ScopeTokens, Tokenizer } from '../tokenize/tokenizer.js';
import type { CallOrigin } from '../upstream/routing/call-origins.js';
import type { UpstreamHub } from '../upstream/hub.js';

/** Whose scripts the APIs serve: what each API binds to. */
export interface ApiOwner {
  /** Whose state the scripts read and write, and who saves a skill. */
  readonly principal: Principal;
  /** The owner in messages and the log: `the client`, `session <id>`, `principal alice`. */
  readonly label: string;
  /** Where what an upstream asks or logs during the owner's calls goes; absent (the `run` command), nowhere. */
  readonly origin?: CallOrigin;
}

export interface HostApis {
  /** The APIs as `owner`'s scripts reach them. */
  forOwner(owner: ApiOwner): OwnerApis;
  /** The principal's tokens (settings.tokenize); undefined when tokenize is off, the one check its off path makes. */
  tokensFor(principal: Principal): ScopeTokens | undefined;
  /** Ends what the APIs hold of their own (the type check's compiler), at shutdown. */
  close(): Promise<void>;
}

export interface HostApiParts {
  readonly hub: UpstreamHub;
  readonly state: StateStore;
  /** The skills library, and who may save to it; absent, scripts have no `skills` (SKILLS_OFF). */
  readonly skills?: {
    readonly library: SkillsLibrary;
    readonly saving: (owner: ApiOwner) => SkillSaving;
    /** After a save, before the script gets its answer: the listing reads the saved skills again. */
    readonly onSaved: () => Promise<void>;
  };
  /** The server's fetcher (src/fetch/fetcher.ts); absent, every fetch() is refused (FETCH_ORIGIN). */
  readonly fetcher?: Fetcher;
  /** The type check before a run: what it does with what it finds (off: there is no checker), and its time limit. */
  readonly settings: Pick<Settings, 'typeCheck' | 'typeCheckTimeoutMs'>;
  /** A server's: the checker's compiler is made ready for each new catalog, so a script's check finds it warm. */
  readonly warmTypeCheck?: boolean;
  readonly log: Log;
  /** Made by the command when settings.tokenize is on; absent, nothing is tokenized. */
  readonly tokenizer?: Tokenizer;
}

export function createHostApis({ hub, state, skills, fetcher, settings, warmTypeCheck, log, tokenizer }: HostApiParts): HostApis {
  const mode = settings.typeCheck;
  const checker = mode === 'off' ? undefined : new ScriptChecker({ timeLimitMs: settings.typeCheckTimeoutMs, log });
  const checkOptions = () => ({ mode, unlisted: hub.unlistedPrefixes() });
  const skillCheck: SkillCheck | undefined =
    checker && (async (skill) => refusalOf(await checker.checkSkill(skill, hub.catalog().tools, checkOptions())));
  const stopWarming =
    checker !== undefined && warmTypeCheck === true
      ? hub.events.on('catalog-changed', () => checker.warm(() => hub.catalog().tools))
      : undefined;
  return {
    tokensFor: (principal) => tokenizer?.forScope(principal),
    forOwner: (owner) => {
      const { origin } = owner;
      const context = origin !== undefined ? { origin } : {};
      return {
        // Named as the script's call: what its upstream asks meanwhile is that script's (call-origins.ts).
        tools: (name, args, signal, onProgress, caller) =>
          hub.callTool(name, args, signal, {
            ...context,
            onProgress,
            caller,
            ...(caller.script !== undefined ? { asker: caller.script.id } : {}),
          }),
        resources: resourcesApi(hub, origin),
        state: stateApi(state, owner.principal),
        ...(skills !== undefined
          ? { skills: savingSkills(skillsApi(skills.library, skills.saving(owner), log, skillCheck), skills.onSaved) }
          : {}),
        ...(fetcher !== undefined ? { fetch: fetchApi(fetcher, owner.principal) } : {}),
        ...(checker !== undefined ? { typeCheck: (code, catalog) => checker.check(code, catalog, checkOptions()) } : {}),
      };
    },
    close: async () => {
      stopWarming?.();
      await checker?.close();
    },
  };
}

/**
 * A script's `resources` calls, answered from the hub: the merged lists as the upstreams wrote
 * their entries, and reads routed by URI (upstream/resource-routes.ts).
 */
function resourcesApi(hub: UpstreamHub, origin: CallOrigin | undefined): ResourceCaller {
  return async ({ call, uri, label }, signal) => {
    switch (call) {
      case 'resources.list':
        return hub.resources().map(({ resource }) => resource);
      case 'resources.templates':
        return hub.resourceTemplates().map(({ template }) => template);
      case 'resources.read':
        // The script's call was checked (call-policy.ts): a read always has its URI.
        if (uri === undefined) throw new TypeError(`${label} came without a URI`);
        return hub.readResource(uri, label, signal, origin !== undefined ? { origin } : {});
    }
  };
}

/** After a save, `onSaved` runs before the script gets its answer, so its next searchTools and the client's list name the skill. */
function savingSkills(api: NonNullable<OwnerApis['skills']>, onSaved: () => Promise<void>): NonNullable<OwnerApis['skills']> {
  return async (request, signal) => {
    const answer = await api(request, signal);
    if (request.call === 'skills.save') await onSaved();
    return answer;
  };
}
