/**
 * `node --import loopguard/hook app.mjs`: installs OpenTelemetry's
 * import-in-the-middle loader before the application loads, so the framework
 * adapters can patch ES modules that are imported by name (needed for ai@6's
 * ESM build; every other adapter works without it).
 */
import { register } from 'node:module';

register('@opentelemetry/instrumentation/hook.mjs', import.meta.url);
