/** Where a command writes; tests pass their own. */
export interface CommandIO {
  out(line: string): void;
  err(line: string): void;
}

export const processIO: CommandIO = {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
};

/** Bad command-line usage: printed with the usage text, exit 2. */
export class UsageError extends Error {
  readonly code = 'LOOPGUARD_USAGE';
}
