import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';

/** What a recorder keeps of a span: enough to read it again, nothing of the machine it ran on. */
export function recordedFixture(recordedWith: string, source: string, span: ReadableSpan) {
  return { source, recordedWith, span: { name: span.name, kind: span.kind, status: span.status, attributes: span.attributes } };
}

export function saveFixtures(file: string, fixtures: unknown[]): void {
  writeFileSync(join(dirname(fileURLToPath(import.meta.url)), 'fixtures', file), `${JSON.stringify(fixtures, null, 2)}\n`);
}
