/**
 * Whether a person must approve a tool's calls (issue 27): `allow`, `ask` or `deny`, from the
 * config's `approvals` globs (a server entry's, over the tool's own name; `settings.approvals`,
 * over the name scripts call) and else from the tool's annotations. Pure: a function of the tool
 * and the globs.
 */
import { matchesAnyGlob } from './tool-policy.js';
import type { ApprovalGlobs } from './types.js';

export type Approval = 'allow' | 'ask' | 'deny';

/** The three, most cautious first: where globs of several match one tool, the first of these wins. */
export const APPROVALS: readonly Approval[] = ['deny', 'ask', 'allow'];

export interface ApprovalOf {
  readonly approval: Approval;
  /** Why, in a phrase for `codemode-mcp tools` and the log: `settings.approvals.ask "*delete*"`, `destructiveHint`. */
  readonly why: string;
}

/** A tool as the policy reads it. */
export interface ApprovalSubject {
  /** As scripts call it (`github__delete_file`). */
  readonly name: string;
  /** Its own name on its server (`delete_file`). */
  readonly upstreamName: string;
  readonly annotations?: { readonly [hint: string]: unknown };
}

/**
 * The config first: of every glob that matches (the entry's over the tool's own name, the
 * settings' over its script name), the most cautious wins, so `deny` beats `ask` beats `allow`.
 * With no glob matching, the annotations: `destructiveHint: true` without `readOnlyHint: true`
 * asks; anything else (read-only, not destructive, no annotations at all) is allowed. MCP's own
 * defaults would take an unannotated tool as destructive and ask about nearly every call; we don't.
 */
export function approvalOf(
  tool: ApprovalSubject,
  entry: ApprovalGlobs | undefined,
  settings: ApprovalGlobs | undefined,
): ApprovalOf {
  for (const approval of APPROVALS) {
    const fromSettings = settings?.[approval]?.find((glob) => matchesAnyGlob([glob], tool.name));
    if (fromSettings !== undefined) return { approval, why: `settings.approvals.${approval} ${JSON.stringify(fromSettings)}` };
    const fromEntry = entry?.[approval]?.find((glob) => matchesAnyGlob([glob], tool.upstreamName));
    if (fromEntry !== undefined)
      return { approval, why: `the server entry's approvals.${approval} ${JSON.stringify(fromEntry)}` };
  }
  const hints = tool.annotations ?? {};
  if (hints.destructiveHint === true && hints.readOnlyHint !== true) return { approval: 'ask', why: 'destructiveHint' };
  return { approval: 'allow', why: hints.readOnlyHint === true ? 'readOnlyHint' : 'no destructiveHint' };
}
