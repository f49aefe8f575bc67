/**
 * The tools this server lists, one listing per server for every client of either revision:
 * code_execution (its description naming the catalog's tools and the saved skills) and the
 * exposed tools. It reads the saved skills again at each list and after each save, says once in
 * the log what is wrong with the exposed tools, and tells each watcher (a 2025 connection, or
 * the sessionless callers as one) when what that watcher's client last listed has changed.
 */
import type { Tool } from '@modelcontextprotocol/server';
import type { SkillLine } from '../catalog/description.js';
import type { Settings } from '../config/settings.js';
import type { Log } from '../support/log.js';
import type { UpstreamHub } from '../upstream/hub.js';
import { codeExecutionTool } from './code-execution/tool.js';
import { exposeProblems, exposedTools, listedTool } from './exposed-tools.js';

export interface ToolListingDeps {
  readonly hub: UpstreamHub;
  readonly settings: Settings;
  /** The saved skills, read again for each list; absent when the server serves no skills. */
  readonly savedSkills?: () => Promise<readonly SkillLine[]>;
  readonly log: Log;
  /** With tokenize on, the line that tells the model tokens exist and pass as they are (src/tokenize/tokens-note.ts). */
  readonly tokensNote?: string;
}

/** One client's (or the sessionless callers') view of the listing. */
export interface ListingWatch {
  /** tools/list: the tools as they are now, remembered as what this watcher's client has. */
  list(): Promise<Tool[]>;
  /** Stops watching. */
  close(): void;
}

interface Watcher {
  /** The tools as this watcher's client last listed them, as JSON; undefined until it lists. */
  listed: string | undefined;
  /** The tools it was last told had changed to, so one change is told once. */
  told: string | undefined;
  readonly notify: () => void;
}

export class ToolListing {
  /** The saved skills as last read; undefined until first read. */
  private skillLines: readonly SkillLine[] | undefined;
  private readonly watchers = new Set<Watcher>();
  private readonly reported = new Set<string>();
  private readonly unsubscribe: () => void;

  constructor(private readonly deps: ToolListingDeps) {
    this.unsubscribe = deps.hub.events.on('catalog-changed', () => this.changed());
  }

  /** A watcher whose `notify` runs when the tools differ from what its client last listed (tools/list_changed). */
  watch(notify: () => void): ListingWatch {
    const watcher: Watcher = { listed: undefined, told: undefined, notify };
    this.watchers.add(watcher);
    return {
      list: async () => {
        await this.readSavedSkills();
        const tools = this.tools();
        watcher.listed = JSON.stringify(tools);
        watcher.told = undefined;
        return tools;
      },
      close: () => this.watchers.delete(watcher),
    };
  }

  /** The tools as they would be listed now, from the saved skills as last read. */
  tools(): Tool[] {
    const { hub, settings, log, tokensNote } = this.deps;
    const catalog = hub.catalog();
    for (const problem of exposeProblems(catalog.tools, settings.expose)) {
      if (this.reported.has(problem)) continue;
      this.reported.add(problem);
      log(problem);
    }
    return [
      codeExecutionTool(catalog, { ...settings, ...(tokensNote !== undefined ? { tokens: tokensNote } : {}) }, this.skillLines),
      ...exposedTools(catalog.tools, settings.expose).map(listedTool),
    ];
  }

  /** The saved skills for a script's searchTools: as last read, read first if they never were. */
  async savedSkills(): Promise<readonly SkillLine[]> {
    if (this.skillLines === undefined) await this.readSavedSkills();
    return this.skillLines ?? [];
  }

  /** The saved skills as last read, without reading (none before the first read). */
  savedSkillsNow(): readonly SkillLine[] {
    return this.skillLines ?? [];
  }

  /** A script saved a skill: the skills are read again and every watcher whose list now differs is told. */
  async skillsSaved(): Promise<void> {
    await this.readSavedSkills();
    this.changed();
  }

  /** Stops following the catalog (the server is shutting down). */
  close(): void {
    this.unsubscribe();
    this.watchers.clear();
  }

  private changed(): void {
    const interested = [...this.watchers].filter((watcher) => watcher.listed !== undefined);
    if (interested.length === 0) return;
    const now = JSON.stringify(this.tools());
    for (const watcher of interested) {
      if (now === watcher.listed || now === watcher.told) continue;
      watcher.told = now;
      watcher.notify();
    }
  }

  /** A library that can't be read names no skills, and the log says why. */
  private async readSavedSkills(): Promise<void> {
    const { savedSkills, log } = this.deps;
    if (savedSkills === undefined) return;
    try {
      this.skillLines = await savedSkills();
    } catch (error) {
      log(`codemode-mcp: the saved skills could not be listed for the description: ${(error as Error).message}`, 'warn');
      this.skillLines = [];
    }
  }
}
