/**
 * Child process of ai-sdk-esm-hook.test.ts: an ESM app as users write it,
 * ai@6 imported next to loopguard and register() called after. Prints
 * whether the app's generateText is the one a loop break ends.
 */
import { generateText } from 'ai-v6';
import { register } from '../../../../instrumentation/index.js';
import { stopsOnBreak } from '../../../../instrumentation/adapters/ai-sdk/v6-stop.js';

const guard = register({ exporter: 'none', instrumentations: { frameworks: ['ai-sdk'], aiModules: ['ai-v6'] } });
await new Promise((resolve) => setImmediate(resolve));
await guard.shutdown();
console.log(JSON.stringify({ stops: stopsOnBreak(generateText) }));
