/**
 * The settings that turn something on or choose how it behaves: tools offered directly, skills
 * saved over HTTP, approvals, and what telemetry and the audit log record.
 */
import { approvalsSetting, choiceSetting, globsSetting, switchSetting } from './setting-kinds.js';

/**
 * The tools offered beside `code_execution` in `tools/list`, callable directly. A denied tool is
 * never exposed (a log line says so); a pattern matching no tool is logged too.
 */
export const EXPOSE_SETTING = globsSetting({
  name: 'expose',
  flag: 'expose',
  doc: 'offer the tools whose script names match this glob beside code_execution, callable directly; repeatable',
  rangeMarkdown: 'globs (`*`, `?`) over tool names as scripts see them; in the file a list',
  details:
    "the matching allowed tools are offered beside `code_execution`, callable directly; a denied match, or a glob matching nothing, is logged. The flags' list replaces the file's",
});

/**
 * Off: a skill is code every session's scripts may then run, and the bearer token names no one, so
 * over HTTP a save is refused unless this is on. Over stdio and in `run` a script always may.
 */
export const SKILLS_SAVE_SETTING = switchSetting({
  name: 'skillsSaveOverHttp',
  flag: 'skills-save-over-http',
  doc: "let scripts in HTTP sessions save skills (skills.save), which every session's scripts may then run",
  details:
    "a script in an HTTP session may save a skill (`skills.save`), which every session's scripts may then run; off, such a save is refused (`SKILL_SAVE_REFUSED`, naming this setting). Over stdio and in `run` a script always may ([docs/config.md](docs/config.md#skillssaveoverhttp))",
});

/**
 * Which tools' calls wait for a person, by glob over the names scripts see (src/config/approval-policy.ts).
 * A tool no glob names is decided by its server entry's `approvals`, then by its annotations.
 */
export const APPROVALS_SETTING = approvalsSetting({
  name: 'approvals',
  flag: 'approvals',
  doc: 'allow, ask or deny by glob over the tool names scripts see, as in ask=github__delete_*: an ask call waits for a person to approve it; repeatable',
  defaultMarkdown: 'none: annotations decide',
  rangeMarkdown: '`{"allow"|"ask"|"deny": [globs]}` over tool names as scripts see them; as a flag, once per glob',
  details:
    "an `ask` tool's calls wait for a person; a `deny` one is not callable. The flags' globs replace the file's ([Approvals](#approvals), [docs/config.md](docs/config.md#approvals))",
});

/** What an `ask` call gets when the client can't ask a person (no elicitation capability). */
export const APPROVAL_FALLBACKS = ['refuse', 'allow'] as const;
export type ApprovalFallback = (typeof APPROVAL_FALLBACKS)[number];

/** Refuse: either way the script's answer and the log say what was done. */
export const APPROVAL_FALLBACK_SETTING = choiceSetting<ApprovalFallback>({
  name: 'approvalFallback',
  flag: 'approval-fallback',
  choices: APPROVAL_FALLBACKS,
  default: 'refuse',
  doc: 'what an ask call gets when the client cannot ask a person (no elicitation): refused, or sent unasked',
  details:
    "what an `ask` call gets when the client can't ask a person (no elicitation): refused, or sent unasked; the answer and the log say which",
});

/** What the type check before a run (src/typecheck/) does with what it finds. */
export const TYPE_CHECK_MODES = ['error', 'warn', 'off'] as const;
export type TypeCheckMode = (typeof TYPE_CHECK_MODES)[number];

/** Error: a script the check finds wrong is refused, and nothing runs or is sent. */
export const TYPE_CHECK_SETTING = choiceSetting<TypeCheckMode>({
  name: 'typeCheck',
  flag: 'type-check',
  choices: TYPE_CHECK_MODES,
  default: 'error',
  doc: "check each script against the tools' types before it runs: error refuses one with errors, warn runs it and says what was found, off",
  details:
    "each script is checked against the tools' types before it runs: `error` refuses one with errors (nothing runs), `warn` runs it and adds what was found to its answer, `off` checks nothing ([docs/config.md](docs/config.md#typecheck-and-typechecktimeoutms))",
});

/** Off by default, each: telemetry (src/telemetry/) and what it and the audit log may record. */
export const SWITCH_SETTINGS = {
  /** Also on when OTEL_EXPORTER_OTLP_ENDPOINT (or its _TRACES_ or _METRICS_ form) is set; the OTEL_* variables say where and how. */
  otel: switchSetting({
    name: 'otel',
    flag: 'otel',
    doc: 'export OpenTelemetry traces and metrics over OTLP/HTTP (also on when OTEL_EXPORTER_OTLP_ENDPOINT is set); the OTEL_* variables say where',
    details:
      'traces and metrics are exported over OTLP/HTTP (to `http://localhost:4318` unless an `OTEL_EXPORTER_OTLP_*` variable says where); also on when `OTEL_EXPORTER_OTLP_ENDPOINT` or its `_TRACES_`/`_METRICS_` form is set',
  }),
  otelScriptCode: switchSetting({
    name: 'otelScriptCode',
    flag: 'otel-script-code',
    doc: "put each script's code on its span (by default only its size and SHA-256 digest)",
    details: "each script's span carries its code, not only the code's size and SHA-256",
  }),
  auditArguments: switchSetting({
    name: 'auditArguments',
    flag: 'audit-arguments',
    doc: "put each call's arguments in its audit log line (by default only their size and SHA-256 digest)",
    details: "each audit line carries the call's arguments too",
  }),
};
