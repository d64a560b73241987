import { closeOnSignals, CollectorConfigError, loadCollectorConfig, startCollector } from '../collector/index.js';
import { LoopGuardConfigError } from '../options.js';
import { UsageError, type CommandIO } from './io.js';

/** `loopguard collector [--config FILE]`: runs until SIGTERM/SIGINT, then drains and exits. */
export async function collectorCommand(argv: string[], io: CommandIO): Promise<number> {
  let configPath: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--config') {
      configPath = argv[++i];
      if (configPath === undefined) throw new UsageError('--config needs a value');
    } else if (a.startsWith('--config=')) configPath = a.slice('--config='.length);
    else throw new UsageError(`unknown collector option ${a}`);
  }
  let collector;
  try {
    collector = await startCollector(loadCollectorConfig(configPath));
  } catch (err) {
    if (err instanceof CollectorConfigError || err instanceof LoopGuardConfigError) {
      io.err(`loopguard collector: ${err.message}`);
      return 2;
    }
    throw err;
  }
  io.out(`loopguard collector listening on ${collector.url}`);
  const exitCode = await new Promise<number>((resolve) => closeOnSignals(collector, { exit: resolve }));
  return exitCode;
}
