#!/usr/bin/env node
import { main } from './main.js';

// A reader that stops early (`loopguard eval … | head`) closes the pipe: that ends the output, not the program with a crash.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code !== 'EPIPE') throw err;
  process.exit(process.exitCode ?? 0);
});

process.exitCode = await main(process.argv.slice(2));
