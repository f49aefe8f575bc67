/**
 * The upstreams' skills (the MCP Skills extension, SEP-2640) passed on to our client, as prompts
 * are: every ready upstream that declares the extension is listed (each page), and a `skills/get`
 * or a read of one of its files goes to it, under the skill's own URIs. A URI served already (by
 * our own skills, or an earlier upstream in the config) is left out, said once in the log.
 */
import type { Skill } from '@modelcontextprotocol/client/ext/skills';
import { logFailure, Logger, type Log } from '../../support/log.js';
import type { Upstream } from '../connection/upstream.js';

/** The file every skill has, at its folder's root. */
const SKILL_MANIFEST = 'SKILL.md';

/** A skill file as read from its upstream: text, or bytes for what is not. */
export type SkillFileRead =
  { readonly text: string; readonly mimeType?: string } | { readonly bytes: Uint8Array; readonly mimeType?: string };

export class SkillRoutes {
  /** Which upstream serves each file URI of the skills last listed. */
  private owners = new Map<string, Upstream>();
  private readonly said = new Set<string>();

  constructor(
    private readonly upstreams: readonly Upstream[],
    private readonly log: Log,
  ) {}

  /** Every upstream's skills whose URIs are not in `taken`, in config order; an upstream that fails is left out, logged. */
  async list(taken: ReadonlySet<string>): Promise<Skill[]> {
    const owners = new Map<string, Upstream>();
    const skills: Skill[] = [];
    const seen = new Set(taken);
    for (const upstream of this.upstreams) {
      const client = upstream.readySession()?.skills();
      if (client === undefined) continue;
      const listing = await client.list().catch((error: unknown) => {
        logFailure(`listing upstream "${upstream.name}"'s skills`, this.log)(error);
        return { skills: [] as Skill[] };
      });
      for (const skill of listing.skills) {
        if (seen.has(skill.uri)) {
          this.sayOnce(`skill ${skill.uri} of upstream "${upstream.name}" is not passed on: another skill is served at that URI`);
          continue;
        }
        seen.add(skill.uri);
        skills.push(skill);
        // A "dynamic" skill lists no files: its SKILL.md is routed, and its other files by their folder.
        const files = skill.resources === 'dynamic' ? [] : skill.resources.map((resource) => resource.uri);
        for (const file of [skill.uri, ...files]) owners.set(file, upstream);
      }
    }
    this.owners = owners;
    return skills;
  }

  /** The upstream skill whose SKILL.md is at `uri`, or undefined when none is (of those last listed, or after listing again). */
  async get(uri: string): Promise<Skill | undefined> {
    const upstream = await this.ownerOf(uri);
    const client = upstream?.readySession()?.skills();
    if (client === undefined) return undefined;
    return (await client.get(uri)).skill;
  }

  /** A file of an upstream skill, as its upstream reads it; undefined when no upstream skill has it. */
  async read(uri: string): Promise<SkillFileRead | undefined> {
    const session = (await this.ownerOf(uri))?.readySession();
    if (session === undefined) return undefined;
    const { contents } = await session.forward('resources/read', { uri }, undefined);
    const content = contents[0];
    if (content === undefined) return undefined;
    const mimeType = content.mimeType !== undefined ? { mimeType: content.mimeType } : {};
    return 'text' in content ? { text: content.text, ...mimeType } : { bytes: Buffer.from(content.blob, 'base64'), ...mimeType };
  }

  private async ownerOf(uri: string): Promise<Upstream | undefined> {
    if (this.routed(uri) === undefined) await this.list(new Set());
    return this.routed(uri);
  }

  /** The upstream of a listed file, or of the skill whose folder holds it (a "dynamic" skill's). */
  private routed(uri: string): Upstream | undefined {
    const exact = this.owners.get(uri);
    if (exact !== undefined) return exact;
    for (const [file, upstream] of this.owners) {
      if (file.endsWith(`/${SKILL_MANIFEST}`) && uri.startsWith(file.slice(0, -SKILL_MANIFEST.length))) return upstream;
    }
    return undefined;
  }

  private sayOnce(line: string): void {
    if (this.said.has(line)) return;
    this.said.add(line);
    Logger.of(this.log).warn(line);
  }
}
