/**
 * Turning telemetry and the audit log on at a server's start, and off at its end. Telemetry is
 * on with `--otel` (setting `otel`) or when an OTLP endpoint variable is set, the way
 * OpenTelemetry's SDKs decide; only then is the SDK loaded.
 */
import type { Settings } from '../config/settings.js';
import { CodemodeError } from '../support/errors.js';
import { Logger, type Log } from '../support/log.js';
import { AuditLog, setActiveAuditLog } from './audit-log.js';
import { setActiveTelemetry, TELEMETRY_OFF } from './telemetry.js';

/** Any of these set (not empty) turns telemetry on. */
export const OTLP_ENDPOINT_VARIABLES = [
  'OTEL_EXPORTER_OTLP_ENDPOINT',
  'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT',
  'OTEL_EXPORTER_OTLP_METRICS_ENDPOINT',
] as const;

/** 60 s: how often metrics are exported, unless OTEL_METRIC_EXPORT_INTERVAL (ms) says otherwise; the last at shutdown. */
export const METRIC_EXPORT_INTERVAL_MS = 60_000;

/** A telemetry variable that can't be used: the message names it and what it takes. */
export class TelemetrySettingError extends CodemodeError {
  override readonly name = 'TelemetrySettingError';

  constructor(text: string) {
    super('TELEMETRY_INVALID', text);
  }
}

export interface Observability {
  /** Exports what is still buffered, then stops; the audit log is closed. */
  close(): Promise<void>;
}

export type ObservabilitySettings = Pick<Settings, 'otel' | 'otelScriptCode' | 'auditLog' | 'auditArguments'>;

/** Whether telemetry is on for these settings and variables; OTEL_SDK_DISABLED=true turns it off whatever else says. */
export function telemetryWanted(settings: Pick<Settings, 'otel'>, env: NodeJS.ProcessEnv): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false;
  return settings.otel || OTLP_ENDPOINT_VARIABLES.some((name) => (env[name] ?? '').trim() !== '');
}

/**
 * Starts what the settings ask for and makes it the process's (activeTelemetry, activeAuditLog).
 * Throws TelemetrySettingError for a bad variable, LogFileError for an audit log that can't be opened.
 */
export async function startObservability(
  settings: ObservabilitySettings,
  version: string,
  log: Log,
  env: NodeJS.ProcessEnv = process.env,
): Promise<Observability> {
  const audit = settings.auditLog === null ? undefined : new AuditLog(settings.auditLog, settings.auditArguments, log);
  let telemetry = TELEMETRY_OFF;
  if (telemetryWanted(settings, env)) {
    const metricIntervalMs = readMetricInterval(env);
    const exporters = { traces: readExporter(env, 'OTEL_TRACES_EXPORTER'), metrics: readExporter(env, 'OTEL_METRICS_EXPORTER') };
    const { createOtelTelemetry } = await import('./otel-telemetry.js');
    telemetry = createOtelTelemetry({ version, scriptCode: settings.otelScriptCode, metricIntervalMs, exporters, log });
    const endpoint = OTLP_ENDPOINT_VARIABLES.map((name) => env[name]).find((value) => (value ?? '').trim() !== '');
    Logger.of(log).info(`OpenTelemetry traces and metrics go to ${endpoint ?? 'http://localhost:4318 (the OTLP/HTTP default)'}`);
  }
  setActiveTelemetry(telemetry);
  setActiveAuditLog(audit);
  return {
    async close() {
      setActiveTelemetry(TELEMETRY_OFF);
      setActiveAuditLog(undefined);
      audit?.close();
      await telemetry.shutdown();
    },
  };
}

function readMetricInterval(env: NodeJS.ProcessEnv): number {
  const raw = env.OTEL_METRIC_EXPORT_INTERVAL;
  if (raw === undefined || raw.trim() === '') return METRIC_EXPORT_INTERVAL_MS;
  const ms = Number(raw);
  if (!Number.isInteger(ms) || ms < 1) {
    throw new TelemetrySettingError(
      `OTEL_METRIC_EXPORT_INTERVAL must be a whole number of milliseconds from 1, as in 60000; got ${JSON.stringify(raw)}`,
    );
  }
  return ms;
}

/** OTEL_TRACES_EXPORTER or OTEL_METRICS_EXPORTER: `otlp` (the default) exports over OTLP/HTTP, `none` not at all. */
function readExporter(env: NodeJS.ProcessEnv, name: 'OTEL_TRACES_EXPORTER' | 'OTEL_METRICS_EXPORTER'): boolean {
  const raw = (env[name] ?? '').trim().toLowerCase();
  if (raw === '' || raw === 'otlp') return true;
  if (raw === 'none') return false;
  throw new TelemetrySettingError(`${name} may be otlp (over OTLP/HTTP, the default) or none; got ${JSON.stringify(env[name])}`);
}
