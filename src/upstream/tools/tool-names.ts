/**
 * Tool names as scripts see them: with one upstream, the tool's own name; with several,
 * `<server>__<tool>`. Two tools that come out the same are a collision, never a silent skip.
 */

/** Between the server's name and the tool's own name, when there are several upstreams. */
export const TOOL_NAME_SEPARATOR = '__';

/** One upstream tool claiming a script name. */
export interface ToolClaim {
  readonly server: string;
  readonly tool: string;
}

export interface NameCollision {
  readonly name: string;
  /** The tool that keeps the name (the earlier upstream in the config, then the earlier in its list). */
  readonly kept: ToolClaim;
  readonly clashing: ToolClaim;
}

export function scriptToolName(prefixed: boolean, claim: ToolClaim): string {
  return prefixed ? `${claim.server}${TOOL_NAME_SEPARATOR}${claim.tool}` : claim.tool;
}

/** Names every claim in order; the first claimant of a name keeps it and each later one is a collision. */
export function assignToolNames<Claim extends ToolClaim>(
  prefixed: boolean,
  claims: Iterable<Claim>,
): { names: Map<string, Claim>; collisions: NameCollision[] } {
  const names = new Map<string, Claim>();
  const collisions: NameCollision[] = [];
  for (const claim of claims) {
    const name = scriptToolName(prefixed, claim);
    const kept = names.get(name);
    if (kept === undefined) names.set(name, claim);
    else collisions.push({ name, kept, clashing: claim });
  }
  return { names, collisions };
}

/** `"a__x__y" is both tool "x__y" of upstream "a" and tool "y" of upstream "a__x"`. */
export function describeCollision({ name, kept, clashing }: NameCollision): string {
  if (kept.server === clashing.server && kept.tool === clashing.tool) {
    return `upstream "${kept.server}" lists tool "${kept.tool}" twice`;
  }
  return `"${name}" is both tool "${kept.tool}" of upstream "${kept.server}" and tool "${clashing.tool}" of upstream "${clashing.server}"`;
}

/**
 * The upstream a script name would belong to when no listed tool has it: the longest server name
 * that prefixes it (server names may themselves hold the separator), or the only server.
 */
export function serverForName(name: string, servers: readonly string[]): string | undefined {
  if (servers.length === 1) return servers[0];
  return servers.filter((server) => name.startsWith(`${server}${TOOL_NAME_SEPARATOR}`)).sort((a, b) => b.length - a.length)[0];
}
