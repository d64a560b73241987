import { evalCommand } from './eval.js';
import { scanCommand } from './scan.js';
import { collectorCommand } from './collector.js';
import { processIO, UsageError, type CommandIO } from './io.js';
import { DETECTION_DEFAULTS, DETECTION_RANGES } from '../options.js';
import { VERSION } from '../version.js';

/** The detection options a --config file (or the collector's `detection:` section) may set, with their defaults. */
function detectionDefaults(): string {
  const ranges: Record<string, readonly [number, number]> = DETECTION_RANGES;
  return Object.entries(DETECTION_DEFAULTS)
    .map(([key, value]) => {
      const range = ranges[key];
      const shown = value === undefined ? 'none' : JSON.stringify(value);
      return `  ${key.padEnd(16)} ${shown}${range ? ` (${range[0]}..${range[1]})` : ''}`;
    })
    .join('\n');
}

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
      mini-SWE-agent .traj.json, tau-bench results, OpenAI transcripts (Chat
      Completions tool calls, Responses API items) and Anthropic transcripts
      (Messages API tool_use / tool_result, Claude Code session files).
  collector [--config FILE]
      Run the OTLP/HTTP collector service: detection for agents in any language.
  version
      Print the version.

Detection options (--config FILE, the collector's detection: section) and their defaults:
${detectionDefaults()}
  thresholds       the preset's (per detector { warning, critical, break })`;

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

