import type { RunningCollector } from './server.js';

export interface CloseOnSignalsOptions {
  /** default ['SIGTERM', 'SIGINT'] */
  signals?: NodeJS.Signals[];
  /** default process.exit */
  exit?: (code: number) => void;
  log?: (message: string) => void;
}

/**
 * On the first signal: stop accepting, drain the forward queue, flush, exit 0
 * (1 if closing failed). A second signal exits at once with 130, for an
 * operator who does not want to wait for the drain.
 */
export function closeOnSignals(collector: Pick<RunningCollector, 'close'>, options: CloseOnSignalsOptions = {}): () => void {
  const signals = options.signals ?? ['SIGTERM', 'SIGINT'];
  const exit = options.exit ?? ((code: number) => process.exit(code));
  const log = options.log ?? ((m: string) => process.stderr.write(`loopguard collector: ${m}\n`));
  let closing = false;
  const onSignal = (signal: NodeJS.Signals): void => {
    if (closing) {
      log(`${signal} again: exiting without waiting for the drain`);
      exit(130);
      return;
    }
    closing = true;
    log(`${signal}: draining and shutting down`);
    collector.close().then(
      () => exit(0),
      (err: unknown) => {
        log(`shutdown failed: ${err instanceof Error ? err.message : String(err)}`);
        exit(1);
      },
    );
  };
  for (const s of signals) process.on(s, onSignal);
  return () => {
    for (const s of signals) process.off(s, onSignal);
  };
}
