import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  CALLS_IN_FLIGHT_MAX,
  CALL_ARGS_MAX_BYTES,
  CALL_ARGS_MAX_VALUES,
  NOTIFY_PAYLOAD_MAX_CHARS,
  RESULT_MAX_DEPTH,
  VALUE_MAX_CHARS,
} from '../../protocol/contract.js';
import { SHOWN_BLOCKS_MAX } from '../../common/content-blocks.js';
import { ECHO_MAX_CHARS } from '../../src/support/echo.js';
import { STRUCTURED_REPEAT_MAX_CHARS } from '../../src/mcp/code-execution/answer.js';
import { OUTPUT_KEPT_CHARS } from '../../src/script-host/output-window.js';
import { STOP_GRACE_MS } from '../../src/script-host/stop-sequence.js';
import { POOL_SHRINK_AFTER_MS } from '../../src/scripts/pool-size.js';
import { formatBytes, groupThousands } from '../../common/format-numbers.js';
import { LOG_SETTINGS, SETTINGS, LOCATION_SETTINGS, SWITCH_SETTINGS, formatSettingValue } from '../../src/config/settings.js';
import { STATE_KEY_MAX_CHARS } from '../../src/state/entry-checks.js';
import { MAX_SCANNED_ID_BYTES } from '../../src/json-rpc/id-scanner.js';
import { GROUP_KILL_AFTER_MS, GROUP_TERM_AFTER_MS } from '../../src/support/process-group.js';
import { UPSTREAM_READ_HEADROOM_BYTES } from '../../src/upstream/transport/read-limit.js';
import { SCHEMA_MAX_BYTES, SCHEMA_MAX_DEPTH } from '../../src/upstream/tools/tool-admission.js';
import { SEARCH_QUERY_MAX_CHARS, SEARCH_QUERY_MAX_WORDS } from '../../common/search-tools.js';
import { MERGED_PAGE_MAX_READS, MERGED_PAGE_SIZE } from '../../src/upstream/passthrough/merged-pages.js';
import { PROMPT_LIST_MAX_PAGES } from '../../src/upstream/passthrough/prompt-routes.js';
import {
  UPSTREAM_TASK_CANCEL_WAIT_MS,
  UPSTREAM_TASK_POLL_MAX_MS,
  UPSTREAM_TASK_POLL_MIN_MS,
} from '../../src/upstream/routing/upstream-task.js';
import { LOGIN_ROUNDS_MAX } from '../../src/upstream/auth/login.js';
import { HELD_REDIRECTS_MAX, SIGN_IN_WAIT_MS } from '../../src/upstream/auth/loopback-redirect.js';
import { SIGN_IN_POLL_MS } from '../../src/upstream/auth/upstream-auth.js';
import { COMMAND_CLOSE_GRACE_MS } from '../../src/commands/one-shot-hub.js';
import { TOKEN_RENEW_MARGIN_MS } from '../../src/upstream/auth/oauth-provider.js';
import { REFUSAL_BODY_MAX_BYTES } from '../../src/upstream/auth/refusals.js';

const limits = readFileSync(new URL('../../docs/config.md', import.meta.url), 'utf8');

describe('the settings and fixed limits in docs/config.md', () => {
  it.each(Object.values(SETTINGS))('gives $name its flag, default and range as src/config/settings.ts defines them', (spec) => {
    const row =
      `| \`${spec.name}\` | \`--${spec.flag}\` | ${formatSettingValue(spec, spec.default)} | ` +
      `${formatSettingValue(spec, spec.min)} – ${formatSettingValue(spec, spec.max)} |`;
    expect(limits).toContain(row);
  });

  it.each(Object.values(LOG_SETTINGS))('gives $name its flag and its default as src/config/settings.ts defines them', (spec) => {
    expect(limits).toContain(`| \`${spec.name}\` | \`--${spec.flag}\` | ${spec.defaultText.replace(/(tools|run)/g, '`$1`')} |`);
  });

  it.each(Object.values(LOCATION_SETTINGS))(
    'gives $name its flag and its default as src/config/settings.ts defines them',
    (spec) => {
      expect(limits).toContain(`| \`${spec.name}\` | \`--${spec.flag}\` | ${spec.defaultText} |`);
    },
  );

  it.each(Object.values(SWITCH_SETTINGS))(
    'gives $name its flag, off by default, as src/config/settings.ts defines it',
    (spec) => {
      expect(limits).toContain(`| \`${spec.name}\` | \`--${spec.flag}\` | off |`);
    },
  );

  it('states the fixed limits as protocol/contract.ts and src/script-host define them', () => {
    expect(limits).toContain(`| calls in flight per script | ${CALLS_IN_FLIGHT_MAX} |`);
    expect(limits).toContain(
      `| a call's arguments | ${formatBytes(CALL_ARGS_MAX_BYTES)} of JSON, ${groupThousands(CALL_ARGS_MAX_VALUES)} values |`,
    );
    expect(limits).toContain(`nesting ${groupThousands(RESULT_MAX_DEPTH)} |`);
    expect(limits).toContain(`| the value | ${formatBytes(VALUE_MAX_CHARS)} of JSON |`);
    expect(limits).toContain(`the first and last ${groupThousands(OUTPUT_KEPT_CHARS)} characters |`);
    expect(limits).toContain(`| a \`notify()\` payload | ${formatBytes(NOTIFY_PAYLOAD_MAX_CHARS)} of JSON, one per second |`);
    expect(limits).toContain(`| a stopped script | ${STOP_GRACE_MS} ms to end by itself |`);
    expect(limits).toContain(`| a pool grown by a burst | ${POOL_SHRINK_AFTER_MS / 1000} s idle once refilled (`);
    expect(limits).toContain(`| client input quoted in a message | ${ECHO_MAX_CHARS} characters |`);
    expect(limits).toContain(`| a key of scripts' state | ${STATE_KEY_MAX_CHARS} characters, not empty, no lone surrogate (`);
    expect(limits).toContain(
      `| the id of a message over \`maxMessageBytes\` | ${formatBytes(MAX_SCANNED_ID_BYTES)} as written |`,
    );
    expect(limits).toContain(`| a message from an upstream | the result cap plus ${formatBytes(UPSTREAM_READ_HEADROOM_BYTES)} (`);
    expect(limits).toContain(
      `| a tool's input or output schema | ${SCHEMA_MAX_DEPTH} levels of nesting, ${formatBytes(SCHEMA_MAX_BYTES)} of JSON, and valid MCP`,
    );
    expect(limits).toContain(
      `| a \`searchTools\` query | ${groupThousands(SEARCH_QUERY_MAX_CHARS)} characters and ${SEARCH_QUERY_MAX_WORDS} distinct words (`,
    );
    expect(limits).toContain(`| ${MERGED_PAGE_SIZE} items, filled from at most ${MERGED_PAGE_MAX_READS} upstream pages (`);
    expect(limits).toContain(`| \`prompts/list\` pages read to check a prompt name | ${PROMPT_LIST_MAX_PAGES} per upstream (`);
    expect(limits).toContain(
      `| its \`pollIntervalMs\`, kept between ${UPSTREAM_TASK_POLL_MIN_MS} ms and ${UPSTREAM_TASK_POLL_MAX_MS / 1000} s (\``,
    );
    expect(limits).toContain(`its \`tasks/cancel\` waited for ${UPSTREAM_TASK_CANCEL_WAIT_MS / 1000} s (\``);
    expect(limits).toContain(`| content blocks in one answer, or in one \`show()\` | ${SHOWN_BLOCKS_MAX} (`);
    expect(limits).toContain(
      `| an upstream's close | SIGTERM to its process group ${GROUP_TERM_AFTER_MS / 1000} s after its stdin closes (${COMMAND_CLOSE_GRACE_MS} ms for \`tools\` and \`run\`, [src/commands/one-shot-hub.ts](../src/commands/one-shot-hub.ts)), SIGKILL ${GROUP_KILL_AFTER_MS / 1000} s later |`,
    );
  });

  it("states the answer's repeat limit in docs/scripts.md as src/mcp/code-execution defines it", () => {
    expect(readFileSync(new URL('../../docs/scripts.md', import.meta.url), 'utf8')).toContain(
      `each is at most ${groupThousands(STRUCTURED_REPEAT_MAX_CHARS)} characters of JSON: a larger one travels once`,
    );
  });

  it('states the OAuth limits as src/upstream/auth defines them', () => {
    expect(limits).toContain(
      `| a remote upstream's access token | renewed when it expires within ${TOKEN_RENEW_MARGIN_MS / 60_000} min,`,
    );
    expect(limits).toContain(`| a sign-in's redirect | ${SIGN_IN_WAIT_MS / 60_000} min |`);
    expect(limits).toContain(`| sign-ins one \`login\` goes through | ${LOGIN_ROUNDS_MAX} |`);
    expect(limits).toContain(`| redirects held while none is awaited | ${HELD_REDIRECTS_MAX} |`);
    expect(limits).toContain(`| a 401/403 body read for its \`error\` | ${formatBytes(REFUSAL_BODY_MAX_BYTES)} |`);
    expect(limits).toContain(`its sign-in file looked at every ${SIGN_IN_POLL_MS / 1000} s |`);
  });
});
