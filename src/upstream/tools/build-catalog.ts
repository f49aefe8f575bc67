/**
 * The catalog as a pure function of the upstreams' lists: every tool named as scripts call it,
 * the config's tool policy applied, a note for each upstream not serving its tools, and whether
 * scripts have resources to read. Two tools under one name are a collision, returned, never
 * skipped in silence.
 */
import type { Catalog, CatalogTool } from '../../catalog/types.js';
import { approvalOf } from '../../config/approval-policy.js';
import type { ApprovalGlobs } from '../../config/types.js';
import type { ToolPolicy } from '../spec.js';
import type { ListedTool } from './tool-admission.js';
import { assignToolNames, scriptToolName, type NameCollision } from './tool-names.js';

/** One upstream as the catalog reads it, in config order. */
export interface UpstreamListing {
  readonly name: string;
  readonly policy: ToolPolicy;
  /** Its entry's `approvals`; absent, the annotations decide. */
  readonly approvals?: ApprovalGlobs;
  /** Its last tool list; undefined until it has listed once. */
  readonly tools: readonly ListedTool[] | undefined;
  /** Why it is not serving its tools (`github is down: ...`), for the description; undefined while it serves. */
  readonly note: string | undefined;
}

export interface CatalogInput {
  readonly upstreams: readonly UpstreamListing[];
  /**
   * The catalog scripts already use, after start: a name in it keeps its tool, and a newcomer that
   * collides is left out. Absent (during start), config order decides, so a collision doesn't
   * depend on who answered first.
   */
  readonly established?: Catalog;
  /** True when at least one upstream offers resources a script may read. */
  readonly resourcesOffered: boolean;
  /** `settings.approvals`, over script names. */
  readonly approvals?: ApprovalGlobs;
}

export interface BuiltCatalog {
  readonly catalog: Catalog;
  /** The names two tools claimed: the first kept it, the second is not in the catalog. */
  readonly collisions: readonly NameCollision[];
}

interface Claim {
  readonly server: string;
  readonly tool: string;
  readonly definition: ListedTool;
  readonly policy: ToolPolicy;
  readonly approvals: ApprovalGlobs | undefined;
}

export function buildCatalog(input: CatalogInput): BuiltCatalog {
  const prefixed = input.upstreams.length > 1;
  const claims: Claim[] = input.upstreams.flatMap((upstream) =>
    (upstream.tools ?? []).map((tool) => ({
      server: upstream.name,
      tool: tool.name,
      definition: tool,
      policy: upstream.policy,
      approvals: upstream.approvals,
    })),
  );
  const known = new Map((input.established?.tools ?? []).map((tool) => [tool.name, tool]));
  const established = (claim: Claim): boolean => {
    const tool = known.get(scriptToolName(prefixed, claim));
    return tool?.server === claim.server && tool.upstreamName === claim.tool;
  };
  const { names, collisions } = assignToolNames(prefixed, [
    ...claims.filter(established),
    ...claims.filter((claim) => !established(claim)),
  ]);
  const tools: CatalogTool[] = [];
  for (const claim of claims) {
    const name = scriptToolName(prefixed, claim);
    if (names.get(name) === claim) tools.push(catalogTool(name, claim, input.approvals));
  }
  const upstreamNotes = input.upstreams.flatMap((upstream) => (upstream.note === undefined ? [] : [upstream.note]));
  return { catalog: { tools, upstreamNotes, resourcesOffered: input.resourcesOffered }, collisions };
}

function catalogTool(
  name: string,
  { server, tool, definition, policy, approvals }: Claim,
  settings?: ApprovalGlobs,
): CatalogTool {
  const { approval, why } = approvalOf({ ...definition, name, upstreamName: tool }, { tools: policy, approvals }, settings);
  return {
    name,
    server,
    upstreamName: tool,
    description: definition.description ?? '',
    inputSchema: definition.inputSchema,
    ...(definition.outputSchema !== undefined ? { outputSchema: definition.outputSchema } : {}),
    ...(definition.title !== undefined ? { title: definition.title } : {}),
    ...(definition.annotations !== undefined ? { annotations: definition.annotations } : {}),
    ...(definition.taskSupport !== undefined ? { taskSupport: definition.taskSupport } : {}),
    ...(definition.note !== undefined ? { note: definition.note } : {}),
    // Deny wins: the entry's allow/deny are part of the approval (config/approval-policy.ts).
    allowed: approval !== 'deny',
    approval,
    approvalWhy: why,
  };
}
