// What an ESM app's `--import` entry does for hook-based instrumentation: register the
// import-in-the-middle loader before any application module is imported.
import { register } from 'node:module';

register('@opentelemetry/instrumentation/hook.mjs', import.meta.url);
