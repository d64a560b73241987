/**
 * The tool-call payloads the benchmarks use: 50 argument objects and their
 * results, each about 200 bytes of JSON, shaped like a web-search tool's.
 * Deterministic, so every run of the bench measures the same bytes.
 */

export interface SearchArgs {
  query: string;
  filters: { site: string; language: string; published_after: string };
  limit: number;
  offset: number;
  include_snippets: boolean;
  safe_search: string;
}

export interface SearchResult {
  total: number;
  hits: Array<{ title: string; url: string }>;
  next_cursor: string | null;
}

const TOPICS = [
  'opentelemetry span processor',
  'node asynclocalstorage context',
  'rfc 8785 canonical json',
  'sha-256 one-shot hashing',
  'agent tool call loop',
  'batch span exporter queue',
  'typescript nodenext modules',
  'circuit breaker pattern',
  'sliding window detector',
  'prometheus counter naming',
];
const QUALIFIERS = ['best practices', 'performance', 'examples', 'pitfalls', 'reference'];
const SITES = ['github.com', 'opentelemetry.io', 'nodejs.org', 'developer.mozilla.org'];

export const PAYLOAD_COUNT = 50;

function makeArgs(i: number): SearchArgs {
  return {
    query: `${TOPICS[i % TOPICS.length]} ${QUALIFIERS[i % QUALIFIERS.length]} ${2020 + Math.floor(i / TOPICS.length)}`,
    filters: { site: SITES[i % SITES.length]!, language: 'en', published_after: `2024-${String((i % 12) + 1).padStart(2, '0')}-01` },
    limit: 10,
    offset: (i % 5) * 10,
    include_snippets: i % 2 === 0,
    safe_search: 'moderate',
  };
}

function makeResult(i: number): SearchResult {
  const site = SITES[i % SITES.length]!;
  const slug = TOPICS[i % TOPICS.length]!.replace(/[^a-z0-9]+/g, '-');
  return {
    total: 1200 + i * 37,
    hits: [
      { title: `${TOPICS[i % TOPICS.length]}`, url: `https://${site}/docs/${slug}/${i}` },
      { title: `On ${QUALIFIERS[i % QUALIFIERS.length]}`, url: `https://${site}/b/${i}` },
    ],
    next_cursor: i % 7 === 0 ? null : `page-${(i % 5) + 2}`,
  };
}

export const ARGS: readonly SearchArgs[] = Array.from({ length: PAYLOAD_COUNT }, (_, i) => makeArgs(i));
export const RESULTS: readonly SearchResult[] = Array.from({ length: PAYLOAD_COUNT }, (_, i) => makeResult(i));

const RESULT_BY_QUERY = new Map(ARGS.map((a, i) => [a.query, RESULTS[i]!]));

/** The tool both sides of the overhead benchmark call: async, answers from memory, so only the instrumentation's cost differs. */
export async function searchTool(args: SearchArgs): Promise<SearchResult> {
  return RESULT_BY_QUERY.get(args.query)!;
}

/** Mean JSON size in bytes of a payload list (reported next to the figures). */
export function meanJsonBytes(values: readonly unknown[]): number {
  let total = 0;
  for (const v of values) total += Buffer.byteLength(JSON.stringify(v));
  return Math.round(total / values.length);
}
