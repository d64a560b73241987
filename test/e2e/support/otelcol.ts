/**
 * The OpenTelemetry Collector built by scripts/e2e/install.sh, started with a
 * collector-config/otelcol/*.yaml on free loopback ports.
 *
 * Every port variable the configs read (OTELCOL_*_PORT) gets a free port
 * unless the caller passes one in `env` (needed when another service must
 * know the port before this one starts, e.g. the gateway's annotated
 * receiver that the loopguard collector forwards to).
 */
import { binaryPath } from './paths.js';
import { freePorts } from './ports.js';
import { startService, type ServiceHandle } from './service.js';
import { httpOk } from './wait.js';

/** The port variables of collector-config/otelcol/*.yaml. */
export const OTELCOL_PORT_VARIABLES = [
  'OTELCOL_AGENTS_HTTP_PORT',
  'OTELCOL_ANNOTATED_HTTP_PORT',
  'OTELCOL_PROMETHEUS_PORT',
  'OTELCOL_HEALTH_PORT',
  'OTELCOL_TELEMETRY_PORT',
  'OTELCOL_SIDECAR_GRPC_PORT',
] as const;
export type OtelcolPortVariable = (typeof OTELCOL_PORT_VARIABLES)[number];

export interface OtelcolInstance {
  readonly ports: Readonly<Record<OtelcolPortVariable, number>>;
  /** OTLP/HTTP base URL for agents (otlp/agents, or otlp in the scale-out configs). */
  readonly agentsUrl: string;
  /** OTLP/HTTP base URL the loopguard collector forwards annotated spans to (gateway only). */
  readonly annotatedUrl: string;
  /** The prometheus exporter's scrape target, host:port (gateway only). */
  readonly prometheusTarget: string;
  /** OTLP/gRPC host:port of a scale-out sidecar. */
  readonly sidecarGrpcEndpoint: string;
  /** The Collector's own metrics (otelcol_exporter_sent_spans...), scrape URL. */
  readonly telemetryUrl: string;
  readonly env: Readonly<Record<string, string>>;
  readonly service: ServiceHandle;
  stop(): Promise<void>;
}

export async function startOtelcol(
  configPath: string,
  env: Readonly<Record<string, string>> = {},
  options: { name?: string; readyTimeoutMs?: number } = {},
): Promise<OtelcolInstance> {
  const missing = OTELCOL_PORT_VARIABLES.filter((variable) => env[variable] === undefined);
  const picked = missing.length > 0 ? await freePorts(missing.length) : [];
  const ports = {} as Record<OtelcolPortVariable, number>;
  for (const variable of OTELCOL_PORT_VARIABLES) {
    const given = env[variable];
    if (given !== undefined) {
      const port = Number(given);
      if (!Number.isInteger(port) || port < 1 || port > 65_535) {
        throw new Error(`startOtelcol: env.${variable} must be a TCP port number, got '${given}'`);
      }
      ports[variable] = port;
    } else {
      ports[variable] = picked[missing.indexOf(variable)]!;
    }
  }
  const fullEnv: Record<string, string> = {
    OTELCOL_BIND_HOST: '127.0.0.1',
    ...Object.fromEntries(OTELCOL_PORT_VARIABLES.map((variable) => [variable, String(ports[variable])])),
    ...env,
  };
  const healthUrl = `http://127.0.0.1:${ports.OTELCOL_HEALTH_PORT}/`;
  const service = await startService({
    name: options.name ?? 'otelcol',
    command: binaryPath('otelcol-loopguard'),
    args: ['--config', configPath],
    env: fullEnv,
    // health_check answers 200 once every pipeline has started.
    isReady: () => httpOk(healthUrl),
    readyTimeoutMs: options.readyTimeoutMs ?? 60_000,
  });
  return {
    ports,
    agentsUrl: `http://127.0.0.1:${ports.OTELCOL_AGENTS_HTTP_PORT}`,
    annotatedUrl: `http://127.0.0.1:${ports.OTELCOL_ANNOTATED_HTTP_PORT}`,
    prometheusTarget: `127.0.0.1:${ports.OTELCOL_PROMETHEUS_PORT}`,
    sidecarGrpcEndpoint: `127.0.0.1:${ports.OTELCOL_SIDECAR_GRPC_PORT}`,
    telemetryUrl: `http://127.0.0.1:${ports.OTELCOL_TELEMETRY_PORT}/metrics`,
    env: fullEnv,
    service,
    stop: () => service.stop(),
  };
}
