import type { Counter } from '@opentelemetry/api';
import { MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import { renderPrometheusText } from './prometheus-text.js';

/** The collector's own metric names (OTel form; Prometheus renders them as `loopguard_collector_*`). */
export const COLLECTOR_METRICS = {
  queueSize: 'loopguard.collector.queue_size',
  spansReceived: 'loopguard.collector.spans.received',
  spansForwarded: 'loopguard.collector.spans.forwarded',
  spansDropped: 'loopguard.collector.spans.dropped',
  requestsRejected: 'loopguard.collector.requests.rejected',
  runsEvicted: 'loopguard.collector.runs.evicted',
  detectionErrors: 'loopguard.collector.detection.errors',
} as const;

export type RejectReason = 'backpressure' | 'unauthorized' | 'too_large' | 'malformed' | 'unsupported_media_type';
export const REJECT_REASONS: readonly RejectReason[] = ['backpressure', 'unauthorized', 'too_large', 'malformed', 'unsupported_media_type'];

/** A reader that collects on demand, for scrapes; nothing to push or flush. */
class PullReader extends MetricReader {
  protected override onForceFlush(): Promise<void> {
    return Promise.resolve();
  }
  protected override onShutdown(): Promise<void> {
    return Promise.resolve();
  }
}

export interface CollectorMetricsSources {
  /** Series per metric; label sets beyond it are counted in one series labelled `otel_metric_overflow="true"`. */
  maxSeriesPerMetric?: number;
  queueSize: () => number;
  /** Runs the detection engine evicted so far (cap or idle TTL), when it reports them. */
  runsEvicted?: () => number;
}

/**
 * One SDK MeterProvider for everything `/metrics` shows: the detection
 * engine's instruments (its Meter is handed to the processor) and the
 * collector's own, rendered together at scrape time.
 */
export class CollectorMetrics {
  /** Handed to the detection engine, whose instruments then show on /metrics too. */
  readonly provider: MeterProvider;
  private readonly reader: PullReader;
  readonly spansReceived: Counter;
  readonly spansForwarded: Counter;
  readonly spansDropped: Counter;
  readonly requestsRejected: Counter;
  readonly detectionErrors: Counter;

  constructor(sources: CollectorMetricsSources) {
    const limit = sources.maxSeriesPerMetric;
    this.reader = new PullReader(limit === undefined ? {} : { cardinalitySelector: () => limit });
    this.provider = new MeterProvider({ readers: [this.reader] });
    const meter = this.provider.getMeter('loopguard-collector');
    this.spansReceived = meter.createCounter(COLLECTOR_METRICS.spansReceived, {
      description: 'Spans received on /v1/traces and accepted for processing.',
    });
    this.spansForwarded = meter.createCounter(COLLECTOR_METRICS.spansForwarded, {
      description: 'Spans the forward endpoint acknowledged.',
    });
    this.spansDropped = meter.createCounter(COLLECTOR_METRICS.spansDropped, {
      description: 'Spans given up on: rejected in a request (invalid ids), refused by the forward endpoint, out of retries, or still queued when the drain timed out.',
    });
    this.requestsRejected = meter.createCounter(COLLECTOR_METRICS.requestsRejected, {
      description: 'Requests answered with an error status, by reason.',
    });
    this.detectionErrors = meter.createCounter(COLLECTOR_METRICS.detectionErrors, {
      description: 'Spans on which the detection engine threw; they are forwarded anyway.',
    });
    meter
      .createObservableGauge(COLLECTOR_METRICS.queueSize, { description: 'Spans waiting in the forward queue.' })
      .addCallback((r) => r.observe(sources.queueSize()));
    const runsEvicted = sources.runsEvicted;
    if (runsEvicted) {
      meter
        .createObservableCounter(COLLECTOR_METRICS.runsEvicted, {
          description: 'Tracked runs evicted by the detection engine (tracked-run cap or idle TTL).',
        })
        .addCallback((r) => r.observe(runsEvicted()));
    }
    // Series that exist from the start, so rate() and absent() in alert rules work before the first event.
    for (const c of [this.spansReceived, this.spansForwarded, this.spansDropped, this.detectionErrors]) c.add(0);
    for (const reason of REJECT_REASONS) this.requestsRejected.add(0, { reason });
  }

  async renderPrometheus(): Promise<string> {
    const { resourceMetrics, errors } = await this.reader.collect();
    for (const err of errors) console.error('loopguard collector: metric collection error:', err);
    return renderPrometheusText(resourceMetrics);
  }

  shutdown(): Promise<void> {
    return this.provider.shutdown();
  }
}
