/**
 * Reads Prometheus text exposition (what `GET /metrics` answers), so a test
 * can compare counters across services without a Prometheus in between.
 */

export interface ExposedSample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const SAMPLE_LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+\d+)?$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"\s*,?\s*/y;

function unescapeLabelValue(value: string): string {
  return value.replace(/\\(n|\\|")/g, (_, escaped: string) => (escaped === 'n' ? '\n' : escaped));
}

function parseLabels(text: string, line: string): Record<string, string> {
  const labels: Record<string, string> = {};
  LABEL.lastIndex = 0;
  while (LABEL.lastIndex < text.length) {
    const start = LABEL.lastIndex;
    const match = LABEL.exec(text);
    if (!match) throw new Error(`cannot read the labels at offset ${start} of exposition line: ${line}`);
    labels[match[1]!] = unescapeLabelValue(match[2]!);
  }
  return labels;
}

export function parseExposition(text: string): ExposedSample[] {
  const samples: ExposedSample[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const match = SAMPLE_LINE.exec(line);
    if (!match) throw new Error(`not a Prometheus exposition sample line: ${line}`);
    samples.push({ name: match[1]!, labels: match[2] ? parseLabels(match[2], line) : {}, value: Number(match[3]) });
  }
  return samples;
}

/** Sum of the samples of `name` whose labels include all of `labels` (0 when none match). */
export function sampleValue(samples: readonly ExposedSample[], name: string, labels: Readonly<Record<string, string>> = {}): number {
  return samples
    .filter((sample) => sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value))
    .reduce((sum, sample) => sum + sample.value, 0);
}

/** GET `${baseUrl}/metrics`, parsed. */
export async function scrape(baseUrl: string): Promise<ExposedSample[]> {
  const url = `${baseUrl.replace(/\/$/, '')}/metrics`;
  const response = await fetch(url, { signal: AbortSignal.timeout(10_000) });
  const text = await response.text();
  if (!response.ok) throw new Error(`GET ${url} answered ${response.status}: ${text.slice(0, 300)}`);
  return parseExposition(text);
}
