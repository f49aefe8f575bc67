/**
 * What both serve commands build once from what they opened, and pass down to every client of
 * either revision: the host APIs (src/mcp/host-apis.ts, with the fetcher for scripts' fetch(),
 * the tokenizer when settings.tokenize is on, and the type check's compiler, closed by the serve's
 * shutdown), the tool listing, the skills library served through the MCP Skills extension, and
 * the approval page (src/approvals/page/).
 */
import type { SkillsExtension } from '@modelcontextprotocol/server/ext/skills';
import type { Settings } from '../config/settings.js';
import { fetcherFor } from '../fetch/fetcher.js';
import { createHostApis, type ApiOwner, type HostApis } from '../mcp/host-apis.js';
import { ToolListing } from '../mcp/tool-listing.js';
import { savedSkillsOf, type SkillSaving } from '../skills/skills-api.js';
import { skillsExtensionOf } from '../skills/skill-source.js';
import { skillsDirectory } from '../skills/skills-directory.js';
import { SkillsLibrary } from '../skills/skills-library.js';
import type { StateStore } from '../state/state-store.js';
import type { Log } from '../support/log.js';
import type { UpstreamHub } from '../upstream/hub.js';
import { ApprovalPage, type PagePlace } from '../approvals/page/approval-page.js';
import { describeTokens } from '../tokenize/tokens-note.js';
import { tokenLabels } from '../tokenize/token-text.js';
import { Tokenizer } from '../tokenize/tokenizer.js';
import { StoredTokenVault } from '../tokenize/stored-vault.js';
import type { TokenizeSettings } from '../config/tokenize-setting.js';

export interface ServedParts {
  readonly apis: HostApis;
  readonly listing: ToolListing;
  readonly skills: SkillsExtension;
  readonly approvalPage: ApprovalPage;
}

/** The tokenizer, its vault in the state store when that is shared (stateDir, stateUrl), else in memory. */
function makeTokenizer(settings: TokenizeSettings, state: StateStore): Tokenizer {
  const store = state.vaultStore;
  return store === undefined ? new Tokenizer(settings) : new Tokenizer(settings, new StoredTokenVault(store, settings));
}

export function buildServedParts(
  hub: UpstreamHub,
  settings: Settings,
  state: StateStore,
  log: Log,
  options: {
    /** Who among the owners of scripts may save a skill. */
    readonly saving: (owner: ApiOwner) => SkillSaving;
    /** Settles when the upstreams' skills may be listed. */
    readonly startup: () => Promise<void>;
    /** Where the approval page is served: stdio's own listener, or a route of the HTTP server. */
    readonly page: PagePlace;
    /** Opens a link in this machine's browser (approvalOpenBrowser, stdio). */
    readonly openBrowser?: (url: string) => void;
    /** The server's version, in the User-Agent of scripts' fetch() requests. */
    readonly version: string;
  },
): ServedParts {
  const library = new SkillsLibrary(skillsDirectory(settings));
  const { tokenize } = settings;
  const listing = new ToolListing({
    hub,
    settings,
    savedSkills: savedSkillsOf(library),
    log,
    ...(tokenize !== null ? { tokensNote: describeTokens(tokenLabels(tokenize)) } : {}),
  });
  const apis = createHostApis({
    hub,
    state,
    skills: { library, saving: options.saving, onSaved: () => listing.skillsSaved() },
    fetcher: fetcherFor(settings, log, options.version),
    settings,
    warmTypeCheck: true,
    log,
    // Made at start, so its packages and phone plans load now, not at the first answer
    // (bench/ANALYSIS.md, "Figures from the code's comments").
    ...(tokenize !== null ? { tokenizer: makeTokenizer(tokenize, state) } : {}),
  });
  const skills = skillsExtensionOf(library, log, { routes: hub.skills, startup: options.startup });
  const approvalPage = new ApprovalPage({
    place: options.page,
    timeoutMs: settings.approvalTimeoutMs,
    log,
    ...(options.openBrowser !== undefined ? { openBrowser: options.openBrowser } : {}),
  });
  return { apis, listing, skills, approvalPage };
}
