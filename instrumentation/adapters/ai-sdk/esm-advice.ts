import { diag } from '@opentelemetry/api';
import { createRequire } from 'node:module';
import { stopsOnBreak } from './v6-stop.js';

let advised = false;

/**
 * ai@6 offers an integration no seam to end `generateText`/`streamText`
 * (its listeners' errors are swallowed, and neither `stopWhen` nor an abort
 * signal is reachable), so under ESM only the import-in-the-middle loader
 * can make a break stop them. When the app's ESM copy of ai@6 is loaded
 * unpatched, say so once, with the fix. A CommonJS app needs nothing.
 */
export function adviseOnUnpatchedAi6(name: string, generateText: unknown): void {
  if (advised || stopsOnBreak(generateText) || createRequire(import.meta.url).main !== undefined) return;
  advised = true;
  const message =
    `loopguard: ai@6 ("${name}") is loaded as an ES module without loopguard's loader, so a loop break fails the tool calls ` +
    `but cannot end generateText/streamText (ToolLoopAgent is stopped). Start node with --import loopguard/hook to stop them too.`;
  diag.warn(message);
  process.emitWarning(message, { type: 'LoopGuardWarning', code: 'LOOPGUARD_AI6_ESM_NO_LOADER' });
}
