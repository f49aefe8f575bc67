import { z } from 'zod';

/**
 * Keys other clients write in a server entry that mean nothing here, accepted and ignored so a
 * file copied from Claude Desktop, Cline, Roo or VS Code works as it is: `disabled` (boolean; a
 * disabled entry is skipped), `description`, `timeout` (our limit is the toolCallTimeoutMs
 * setting), `alwaysAllow` and `autoApprove` (approval is the client's business). Any other
 * unknown key in an entry is an error naming it, because ignoring one (say `envFile`) would
 * silently start a server without what the user asked for.
 */
export const TOLERATED_ENTRY_KEYS = ['disabled', 'description', 'timeout', 'alwaysAllow', 'autoApprove'] as const;

const tolerated = {
  disabled: z.boolean().optional(),
  description: z.unknown().optional(),
  timeout: z.unknown().optional(),
  alwaysAllow: z.unknown().optional(),
  autoApprove: z.unknown().optional(),
};

const glob = z.string().min(1, 'must not be an empty glob');

const globsOver = (what: string) => ({
  allow: z.array(glob).min(1, `must list at least one glob; leave allow out to allow every ${what}`).optional(),
  deny: z.array(glob).optional(),
});

/** Which tools' calls wait for a person: globs over the tool's own name (src/config/approval-policy.ts). */
const approvals = z.strictObject({
  allow: z.array(glob).optional(),
  ask: z.array(glob).optional(),
  deny: z.array(glob).optional(),
});

/**
 * `allow`/`deny` for tools at the entry's top level; the same pair under `resources` (URIs) and
 * `prompts`; `approvals` (allow, ask, deny) for the calls a person decides on.
 */
const policy = {
  ...globsOver('tool'),
  approvals: approvals.optional(),
  resources: z.strictObject(globsOver('resource')).optional(),
  prompts: z.strictObject(globsOver('prompt')).optional(),
};

const stringMap = z.record(z.string(), z.string());

export const stdioEntrySchema = z.strictObject({
  type: z.literal('stdio').optional(),
  command: z.string().min(1, 'must not be empty'),
  args: z.array(z.string()).default([]),
  env: stringMap.default({}),
  cwd: z.string().min(1, 'must not be empty').optional(),
  ...policy,
  ...tolerated,
});

/** OAuth for a remote entry (src/upstream/auth/, docs/upstreams.md#oauth); checked together in parse-server-entry.ts. */
export const oauthSchema = z.strictObject({
  clientId: z.string().min(1, 'must not be empty').optional(),
  clientSecret: z.string().min(1, 'must not be empty').optional(),
  scope: z.string().min(1, 'must not be empty; leave scope out to let the server choose').optional(),
  redirectPort: z
    .number()
    .int('must be a whole number')
    .min(1, 'must be a port from 1 to 65535')
    .max(65535, 'must be a port from 1 to 65535')
    .optional(),
  grant: z.enum(['authorization_code', 'client_credentials']).optional(),
  privateKeyFile: z.string().min(1, 'must not be empty').optional(),
});

export const remoteEntrySchema = z.strictObject({
  type: z.enum(['http', 'sse']).optional(),
  url: z.string().min(1, 'must not be empty'),
  headers: stringMap.default({}),
  oauth: oauthSchema.optional(),
  allowInsecureHttp: z.boolean().optional(),
  ...policy,
  ...tolerated,
});

export type OAuthEntry = z.infer<typeof oauthSchema>;

export const ENTRY_TYPES = ['stdio', 'http', 'sse'] as const;

/** The keys an entry of this kind takes, for "unknown key" messages; tolerated ones left out. */
export function keysTakenBy(schema: typeof stdioEntrySchema | typeof remoteEntrySchema): string[] {
  const tolerated: readonly string[] = TOLERATED_ENTRY_KEYS;
  return Object.keys(schema.shape).filter((key) => !tolerated.includes(key));
}
