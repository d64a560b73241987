import { evalCommand } from './eval.js';
import { scanCommand } from './scan.js';
import { collectorCommand } from './collector.js';
import { processIO, UsageError, type CommandIO } from './io.js';
import { VERSION } from '../version.js';

const USAGE = `Usage: loopguard <command> [options]

Commands:
  eval FILE [--json] [--preset NAME] [--config FILE]
      Replay labelled trajectories through wrapped tools, SDK spans and the
      processor, and score them. Exit 0 when evaluated, 2 on unreadable input.
  scan FILE... [--json] [--preset NAME] [--config FILE]
      Replay runs from agent logs or trace files the same way and report, per
      run, each verdict with its step, detector and evidence. Exit 0 when
      scanned, 2 on unreadable input.
      Both read, by content: the benchmark JSONL, OTLP/JSON (Collector file
      exporter), Jaeger JSON, OpenHands events/output.jsonl, SWE-agent .traj,
      mini-SWE-agent .traj.json and tau-bench results.
  collector [--config FILE]
      Run the OTLP/HTTP collector service: detection for agents in any language.
  version
      Print the version.`;

export async function main(argv: string[], io: CommandIO = processIO): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case 'eval':
        return await evalCommand(rest, io);
      case 'scan':
        return await scanCommand(rest, io);
      case 'collector':
        return await collectorCommand(rest, io);
      case 'version':
      case '--version':
        io.out(VERSION);
        return 0;
      case undefined:
      case 'help':
      case '--help':
      case '-h':
        io.out(USAGE);
        return command === undefined ? 2 : 0;
      default:
        throw new UsageError(`unknown command "${command}"`);
    }
  } catch (err) {
    if (err instanceof UsageError) {
      io.err(`loopguard: ${err.message}\n\n${USAGE}`);
      return 2;
    }
    throw err;
  }
}

