import { describe, expect, it } from 'vitest';
import { DEFAULT_SETTINGS } from '../../src/config/settings.js';
import { activeTelemetry } from '../../src/telemetry/telemetry.js';
import { startObservability, telemetryWanted } from '../../src/telemetry/start-telemetry.js';

const OFF = { ...DEFAULT_SETTINGS };

describe('whether telemetry is on', () => {
  it('is on with --otel or an OTLP endpoint variable, and off with none or OTEL_SDK_DISABLED=true', () => {
    expect(telemetryWanted(OFF, {})).toBe(false);
    expect(telemetryWanted(OFF, { OTEL_EXPORTER_OTLP_ENDPOINT: ' ' })).toBe(false);
    expect(telemetryWanted({ otel: true }, {})).toBe(true);
    expect(telemetryWanted(OFF, { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toBe(true);
    expect(telemetryWanted(OFF, { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' })).toBe(true);
    expect(telemetryWanted(OFF, { OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: 'http://collector:4318/v1/metrics' })).toBe(true);
    expect(telemetryWanted({ otel: true }, { OTEL_SDK_DISABLED: 'TRUE' })).toBe(false);
  });

  it('off, starts nothing and leaves the hooks calling straight through', async () => {
    const observability = await startObservability(OFF, '0.0.0', () => {}, {});
    expect(activeTelemetry().on).toBe(false);
    await observability.close();
  });

  it('refuses a bad OTEL_METRIC_EXPORT_INTERVAL or exporter name, saying what it takes', async () => {
    const on = { ...OFF, otel: true };
    await expect(startObservability(on, '0.0.0', () => {}, { OTEL_METRIC_EXPORT_INTERVAL: '5s' })).rejects.toThrow(
      'TELEMETRY_INVALID: OTEL_METRIC_EXPORT_INTERVAL must be a whole number of milliseconds from 1, as in 60000; got "5s"',
    );
    await expect(startObservability(on, '0.0.0', () => {}, { OTEL_TRACES_EXPORTER: 'zipkin' })).rejects.toThrow(
      'TELEMETRY_INVALID: OTEL_TRACES_EXPORTER may be otlp (over OTLP/HTTP, the default) or none; got "zipkin"',
    );
    expect(activeTelemetry().on).toBe(false);
  });
});
