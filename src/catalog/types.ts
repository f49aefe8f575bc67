/**
 * The tool catalog as the upstream layer hands it over: one entry per upstream tool, named as
 * scripts call it. Everything in src/catalog reads it; nothing here changes it.
 */

import type { Approval } from '../config/approval-policy.js';

/**
 * A JSON Schema as an upstream server sent it. Read defensively: upstreams emit every draft and
 * dialect (zod-to-json-schema, zod 4, hand-written), so no keyword is trusted to be well-formed.
 */
export type JsonSchema = { readonly [keyword: string]: unknown };

export interface CatalogTool {
  /** The name scripts call it by: the tool's own name, or `<server>__<tool>` with several servers. */
  readonly name: string;
  /** The upstream server's name in the config. */
  readonly server: string;
  /** The tool's name on its server. */
  readonly upstreamName: string;
  readonly description: string;
  /** An object schema, per MCP. */
  readonly inputSchema: JsonSchema;
  readonly outputSchema?: JsonSchema;
  /** The upstream's title and annotations, for a tool offered directly beside code_execution (`expose`). */
  readonly title?: string;
  readonly annotations?: { readonly [hint: string]: unknown };
  /** The upstream's `execution.taskSupport` when it offers tasks: an exposed call may (or must) be an MCP task. */
  readonly taskSupport?: 'optional' | 'required';
  /** Set when the upstream's schema couldn't be used and a placeholder stands in: why, and what is shown. */
  readonly note?: string;
  /** False when the config denies it (its allow/deny, or approvals deny): then it is neither listed to the model nor callable. */
  readonly allowed: boolean;
  /** Whether its calls wait for a person (src/config/approval-policy.ts); `deny` also makes it not allowed. Absent: allow. */
  readonly approval?: Approval;
  /** Why, in a phrase: the glob that decided, or the annotation. */
  readonly approvalWhy?: string;
}

/**
 * The catalog as the hub hands it over: every tool, and a note for each upstream that is not
 * serving its tools (`github is down: it exited during startup; its stderr last said: "..."`),
 * which the description shows so the model knows why tools are missing; and whether scripts have
 * resources to read.
 */
export interface Catalog {
  readonly tools: readonly CatalogTool[];
  readonly upstreamNotes: readonly string[];
  /** True when at least one upstream offers resources a script may read (`resources` in the guest). */
  readonly resourcesOffered: boolean;
}
