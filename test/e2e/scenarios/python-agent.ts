/**
 * The Python agent (test/e2e/agents/python/genai_agent.py) as a scenario
 * runs it: the command line for one run against a loopguard collector, and
 * its stdout lines (one per step, one for the run) typed and split.
 */
import { join } from 'node:path';
import { expect } from 'vitest';
import { AGENTS_DIR, type AgentCommand } from './agent-process.js';
import type { PythonEnv } from './python-env.js';

/** `GET /v1/runs/{key}` as the agent read it. */
export interface PythonAgentVerdict {
  runKey: string;
  toolCalls: number;
  level: string | null;
  detections: number;
  stopped: boolean;
  stopReason: string | null;
  last?: { detector: string; level: string; step: number; tool: string };
}

export interface PythonStepLine {
  type: 'step';
  step: number;
  tool: string;
  args: Record<string, unknown>;
  /** The tool's error, when it failed (the run goes on). */
  error: string | null;
  verdict: PythonAgentVerdict | null;
}

export interface PythonRunLine {
  type: 'run';
  trace_id: string;
  run_key: string;
  tool_calls: number;
  stopped: boolean;
  verdict: PythonAgentVerdict | null;
  exported_spans: number;
  failed_spans: number;
}

export type PythonAgentLine = PythonStepLine | PythonRunLine;

/**
 * One run of the agent: `looping` asks for a missing order again and again,
 * `normal` reads a new page each step, `deploy` fails a health check, restarts
 * the service and finishes (re-checking first with `--recheck`).
 */
export function pythonAgent(
  python: PythonEnv,
  collectorUrl: string,
  service: string,
  mode: 'looping' | 'normal' | 'deploy',
  extra: readonly string[] = [],
): AgentCommand {
  return {
    name: `python-agent (${mode})`,
    command: python.python,
    args: [join(AGENTS_DIR, 'python', 'genai_agent.py'), '--endpoint', collectorUrl, '--service', service, '--mode', mode, ...extra],
    timeoutMs: 90_000,
  };
}

/** The step lines and the one run line of an agent's output. */
export function splitPythonRun(lines: readonly PythonAgentLine[]): { steps: PythonStepLine[]; run: PythonRunLine } {
  const steps = lines.filter((line): line is PythonStepLine => line.type === 'step');
  const runs = lines.filter((line): line is PythonRunLine => line.type === 'run');
  expect(runs).toHaveLength(1);
  return { steps, run: runs[0]! };
}
