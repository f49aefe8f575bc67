/**
 * Whether a tool's calls are refused, wait for a person, or go straight on (issue 27): `deny`,
 * `ask` or `allow`, from the server entry's `allow`/`deny` (which tools a script may call at all),
 * the config's `approvals` globs (a server entry's, over the tool's own name; `settings.approvals`,
 * over the name scripts call), and else the tool's annotations. Pure: a function of the tool and
 * the globs.
 */
import { isAllowedBy, matchesAnyGlob } from './tool-policy.js';
import type { ApprovalGlobs, ToolPolicy } from './types.js';

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

/** What a server entry says of its tools: its `allow`/`deny`, and its `approvals`. */
export interface EntryRules {
  readonly tools: ToolPolicy;
  readonly approvals?: ApprovalGlobs | undefined;
}

/**
 * Deny wins, whatever else is said of the tool: a tool the entry's `deny` names, or that its
 * `allow` leaves out, is denied, and never put to a person. Then the approvals globs: of every
 * one that matches (the entry's over the tool's own name, the settings' over its script name),
 * the most cautious wins, so `deny` beats `ask` beats `allow`. With no glob matching, the
 * annotations: `destructiveHint: true` without `readOnlyHint: true` asks; anything else
 * (read-only, not destructive, no annotations at all) is allowed. MCP's own defaults would take
 * an unannotated tool as destructive and ask about nearly every call; we don't.
 */
export function approvalOf(
  tool: ApprovalSubject,
  entry: EntryRules | undefined,
  settings: ApprovalGlobs | undefined,
): ApprovalOf {
  const callable = entry === undefined ? undefined : entryRefusal(entry.tools, tool.upstreamName);
  if (callable !== undefined) return { approval: 'deny', why: callable };
  for (const approval of APPROVALS) {
    const fromSettings = settings?.[approval]?.find((glob) => matchesAnyGlob([glob], tool.name));
    if (fromSettings !== undefined) return { approval, why: `settings.approvals.${approval} ${JSON.stringify(fromSettings)}` };
    const fromEntry = entry?.approvals?.[approval]?.find((glob) => matchesAnyGlob([glob], tool.upstreamName));
    if (fromEntry !== undefined)
      return { approval, why: `the server entry's approvals.${approval} ${JSON.stringify(fromEntry)}` };
  }
  const hints = tool.annotations ?? {};
  if (hints.destructiveHint === true && hints.readOnlyHint !== true) return { approval: 'ask', why: 'destructiveHint' };
  return { approval: 'allow', why: hints.readOnlyHint === true ? 'readOnlyHint' : 'no destructiveHint' };
}

/** Why the entry's `allow`/`deny` make the tool uncallable, or undefined when they allow it. */
function entryRefusal(policy: ToolPolicy, name: string): string | undefined {
  if (isAllowedBy(policy, name)) return undefined;
  const denying = policy.deny?.find((glob) => matchesAnyGlob([glob], name));
  return denying !== undefined ? `the server entry's deny ${JSON.stringify(denying)}` : "not in the server entry's allow";
}
