import { createServer, request } from 'node:http';
import { Agent } from 'node:http';
import { readFileSync } from 'node:fs';
import { ExportTraceServiceRequestType, ResourceSpansType, ScopeSpansType } from '../src/collector/otlp-schema.js';
import { topFields } from '../src/collector/otlp-wire.js';

/**
 * The bench's other side, run pinned to its own core: a counting OTLP/HTTP
 * sink (the forward target of the system under test) and the load generator.
 * argv: sinkPort targetUrl senders warmupMs measureMs payloadFile [maxInFlightSpans].
 * With maxInFlightSpans (> 0) senders wait while that many spans are sent and
 * not yet delivered to the sink: a pipeline that queues what it acknowledges
 * (a load balancer in front of the system) is then offered what it delivers,
 * not flooded.
 * Prints `measure-start`, `measure-end` (the orchestrator reads the system's
 * CPU time at those lines), then one JSON line with the counts.
 */
const [sinkPort, target, sendersArg, warmupArg, measureArg, payloadFile, windowArg] = process.argv.slice(2);
const maxInFlightSpans = Number(windowArg ?? 0);
const senders = Number(sendersArg);
const warmupMs = Number(warmupArg);
const measureMs = Number(measureArg);

// Payload file: 4-byte length + body, repeated.
const file = readFileSync(payloadFile!);
const bodies: Buffer[] = [];
const spansPerBody: number[] = [];
for (let pos = 0; pos < file.length; ) {
  const len = file.readUInt32BE(pos);
  const body = file.subarray(pos + 4, pos + 4 + len);
  bodies.push(body);
  spansPerBody.push(countSpans(body));
  pos += 4 + len;
}

function countSpans(body: Buffer): number {
  let n = 0;
  for (const rs of topFields(ExportTraceServiceRequestType, body, 0, body.length, '')) {
    if (rs.id !== 1) continue;
    for (const ss of topFields(ResourceSpansType, body, rs.start, rs.end, '')) {
      if (ss.id !== 2) continue;
      for (const f of topFields(ScopeSpansType, body, ss.start, ss.end, '')) if (f.id === 2) n++;
    }
  }
  return n;
}

let phase: 'warmup' | 'measure' | 'done' = 'warmup';
// A function, so the check after an await reads the phase as it is then.
const finished = (): boolean => phase === 'done';
const counts = { sinkSpans: 0, ackedSpans: 0, requests: 0, refused: 0, errors: 0 };
/** Spans sent (and not refused) and spans delivered, since the start: their difference is what the pipeline holds. */
let sentSpans = 0;
let deliveredSpans = 0;
let onDelivery: (() => void)[] = [];

async function waitForRoom(spans: number): Promise<void> {
  while (maxInFlightSpans > 0 && phase !== 'done' && sentSpans - deliveredSpans + spans > maxInFlightSpans) {
    await new Promise<void>((resolve) => onDelivery.push(resolve));
  }
}

const sink = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const spans = countSpans(Buffer.concat(chunks));
    if (phase === 'measure') counts.sinkSpans += spans;
    deliveredSpans += spans;
    const waiting = onDelivery;
    onDelivery = [];
    for (const wake of waiting) wake();
    res.writeHead(200, { 'content-type': 'application/x-protobuf', 'content-length': '0' }).end();
  });
});

const agent = new Agent({ keepAlive: true, maxSockets: senders });
const url = new URL(target!);

function post(body: Buffer): Promise<{ status: number; retryAfter: number }> {
  return new Promise((resolve) => {
    const req = request(
      { host: url.hostname, port: url.port, path: url.pathname, method: 'POST', agent, headers: { 'content-type': 'application/x-protobuf', 'content-length': body.length } },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0, retryAfter: Number(res.headers['retry-after'] ?? 0) }));
      },
    );
    req.on('error', () => resolve({ status: 0, retryAfter: 0 }));
    req.end(body);
  });
}

async function sender(index: number): Promise<void> {
  let next = index;
  while (phase !== 'done') {
    const i = next++ % bodies.length;
    await waitForRoom(spansPerBody[i]!);
    if (finished()) break;
    sentSpans += spansPerBody[i]!;
    const { status, retryAfter } = await post(bodies[i]!);
    if (status !== 200) sentSpans -= spansPerBody[i]!;
    if (phase === 'measure') counts.requests++;
    if (status === 200) {
      if (phase === 'measure') counts.ackedSpans += spansPerBody[i]!;
    } else {
      if (phase === 'measure') (status === 429 || status === 503 ? counts.refused++ : counts.errors++);
      // A well-behaved sender backs off when told to (capped, so the bench keeps load on).
      await new Promise((r) => setTimeout(r, Math.min(200, retryAfter > 0 ? retryAfter * 1000 : 50)));
    }
  }
}

sink.listen(Number(sinkPort), '127.0.0.1', () => {
  const running = Array.from({ length: senders }, (_, i) => sender(i));
  setTimeout(() => {
    phase = 'measure';
    process.stdout.write('measure-start\n');
    setTimeout(() => {
      process.stdout.write('measure-end\n');
      phase = 'done';
      for (const wake of onDelivery) wake();
      void Promise.all(running).then(() => {
        process.stdout.write(`${JSON.stringify({ ...counts, measureMs })}\n`);
        agent.destroy();
        sink.close();
        sink.closeAllConnections();
      });
    }, measureMs);
  }, warmupMs);
});
