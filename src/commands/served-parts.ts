/**
 * What both serve commands build once from what they opened, and pass down to every client of
 * either revision: the host APIs (src/mcp/host-apis.ts, the type check's compiler among them,
 * closed by the serve's shutdown), the tool listing, and the skills library served through the
 * MCP Skills extension.
 */
import type { SkillsExtension } from '@modelcontextprotocol/server/ext/skills';
import type { Settings } from '../config/settings.js';
import { createHostApis, type ApiOwner, type HostApis } from '../mcp/host-apis.js';
import { ToolListing } from '../mcp/tool-listing.js';
import { savedSkillsOf, type SkillSaving } from '../skills/skills-api.js';
import { skillsExtensionOf } from '../skills/skill-source.js';
import { skillsDirectory } from '../skills/skills-directory.js';
import { SkillsLibrary } from '../skills/skills-library.js';
import type { StateStore } from '../state/state-store.js';
import type { Log } from '../support/log.js';
import type { UpstreamHub } from '../upstream/hub.js';

export interface ServedParts {
  readonly apis: HostApis;
  readonly listing: ToolListing;
  readonly skills: SkillsExtension;
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
  },
): ServedParts {
  const library = new SkillsLibrary(skillsDirectory(settings));
  const listing = new ToolListing({ hub, settings, savedSkills: savedSkillsOf(library), log });
  const apis = createHostApis({
    hub,
    state,
    skills: { library, saving: options.saving, onSaved: () => listing.skillsSaved() },
    settings,
    warmTypeCheck: true,
    log,
  });
  const skills = skillsExtensionOf(library, log, { routes: hub.skills, startup: options.startup });
  return { apis, listing, skills };
}
