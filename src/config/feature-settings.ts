/**
 * The settings that turn something on or choose how it behaves: tools offered directly, skills
 * saved over HTTP, approvals, and what telemetry and the audit log record.
 */
import {
  approvalsSetting,
  choiceSetting,
  fetchOriginsSetting,
  globsSetting,
  switchSetting,
  webOriginSetting,
} from './setting-kinds.js';

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
    "an `ask` tool's calls wait for a person; a `deny` one is not callable. The flags' globs replace the file's ([docs/approvals.md](docs/approvals.md), [docs/config.md](docs/config.md#approvals-and-approvalfallback))",
});

/**
 * How a person is asked about an `ask` call (issue 46): `client`, only through the MCP client
 * (elicitation, `input_required`); `page`, only on the approval page (the link as a URL
 * elicitation where the client takes one, else in the script's answer for the model to pass on);
 * `both`, the client's question and the page at once, the first answer winning; `auto`, the client
 * where it can ask, the page where it can't.
 */
export const APPROVAL_VIAS = ['auto', 'client', 'page', 'both'] as const;
export type ApprovalVia = (typeof APPROVAL_VIAS)[number];

export const APPROVAL_VIA_SETTING = choiceSetting<ApprovalVia>({
  name: 'approvalVia',
  flag: 'approval-via',
  choices: APPROVAL_VIAS,
  default: 'auto',
  defaultText: "auto (the client where it can ask, the page where it can't)",
  defaultMarkdown: "`auto`: the client where it can ask, the page where it can't",
  doc: 'where a person is asked about an ask call: the MCP client, the approval page, or both (the first answer wins)',
  details:
    "where a person decides on an `ask` call: `client` (elicitation or `input_required`; a client that can't ask gets `approvalFallback`), `page` (a local approval page: its link as a URL elicitation, or in the script's answer for the model to pass on), `both` (the first answer wins) ([docs/config.md](docs/config.md#approvalvia))",
});

/** Off: the link goes to the person only through the client or the model. */
export const APPROVAL_OPEN_BROWSER_SETTING = switchSetting({
  name: 'approvalOpenBrowser',
  flag: 'approval-open-browser',
  doc: "open each approval page link in this machine's browser (stdio only, on a desktop)",
  details:
    "each approval page link is also opened in this machine's web browser (`xdg-open`, `open` or `start`); over stdio only, for a person at this desktop",
});

/** Unset, --http's links name the listener's own address (a wildcard one as 127.0.0.1). */
export const APPROVAL_PAGE_URL_SETTING = webOriginSetting({
  name: 'approvalPageUrl',
  flag: 'approval-page-url',
  placeholder: '<origin>',
  defaultText: "the --http listener's own address",
  doc: "with --http, the origin a person's browser reaches this server at (behind a proxy), as approval page links name it",
  details:
    "with `--http`, the origin (`https://mcp.example.com`) that approval page links name, as a person's browser reaches the server (a proxy's public name); unset, the listener's own address ([docs/deploy.md](docs/deploy.md#the-approval-page-behind-nginx))",
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
  doc: 'what an ask call gets when no person can be asked (approvalVia "client" and no elicitation, or run without a terminal): refused, or sent unasked',
  details:
    'what an `ask` call gets when no person can be asked (`approvalVia` is `client` and the client declared no elicitation; `run` without a terminal): refused, or sent unasked; the answer and the log say which',
});

/**
 * `{"<origin>": {methods?, headers?, approval?, paths?, allowPrivate?, allowInsecureHttp?}}`: the
 * origins scripts' fetch() may reach, what the server adds to each request (credentials from
 * `${VAR}`, never shown to scripts), which requests wait for a person (src/config/fetch-setting.ts).
 * None listed (the default): every fetch() is refused, FETCH_ORIGIN.
 */
export const FETCH_SETTING = fetchOriginsSetting({
  name: 'fetch',
  flag: 'fetch',
  doc: 'origins scripts may fetch, as the JSON object the file holds: their methods, the headers the server adds (credentials scripts never see), approval, paths, private addresses; repeatable',
  defaultMarkdown: 'none: `fetch()` is refused',
  rangeMarkdown:
    '`{"<origin>": {methods, headers, approval, paths, allowPrivate, allowInsecureHttp}}`; as a flag the same JSON, once or more',
  details:
    "scripts' `fetch()` reaches these origins alone, made by the server, which adds the entry's headers (`${VAR}` expanded; scripts never see them); another origin, method, path or a private address is refused (`FETCH_ORIGIN`, ...). The flags' origins replace the file's ([docs/config.md](docs/config.md#fetch-fetchmaxbytes-and-fetchtimeoutms))",
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
