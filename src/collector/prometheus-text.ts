import type { Attributes } from '@opentelemetry/api';
import { DataPointType } from '@opentelemetry/sdk-metrics';
import type { MetricData, ResourceMetrics } from '@opentelemetry/sdk-metrics';

/**
 * Prometheus text exposition format 0.0.4 for metrics collected from an SDK
 * MeterProvider. Names follow the OpenTelemetry-to-Prometheus compatibility
 * rules that matter here: invalid characters (dots) become underscores,
 * monotonic sums are counters with a `_total` suffix, non-monotonic sums and
 * gauges are gauges, histograms get `_bucket`/`_sum`/`_count`. Units are not
 * appended, so `loopguard.detections` is `loopguard_detections_total`.
 */
export const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

export function sanitizeMetricName(name: string): string {
  const s = name.replace(/[^a-zA-Z0-9_:]/g, '_');
  return /^[0-9]/.test(s) ? `_${s}` : s;
}

export function sanitizeLabelName(name: string): string {
  const s = name.replace(/[^a-zA-Z0-9_]/g, '_');
  return /^[0-9]/.test(s) ? `_${s}` : s;
}

const escapeLabelValue = (v: string): string => v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
const escapeHelp = (v: string): string => v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');

function formatValue(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Number.POSITIVE_INFINITY) return '+Inf';
  if (v === Number.NEGATIVE_INFINITY) return '-Inf';
  return String(v);
}

function labelValueText(v: unknown): string {
  if (Array.isArray(v)) return JSON.stringify(v);
  return String(v);
}

function formatLabels(attributes: Attributes, extra?: [string, string]): string {
  const parts: string[] = [];
  for (const [k, v] of Object.entries(attributes)) {
    if (v === undefined || v === null) continue;
    parts.push(`${sanitizeLabelName(k)}="${escapeLabelValue(labelValueText(v))}"`);
  }
  if (extra) parts.push(`${extra[0]}="${escapeLabelValue(extra[1])}"`);
  return parts.length > 0 ? `{${parts.join(',')}}` : '';
}

interface Family {
  type: 'counter' | 'gauge' | 'histogram';
  help: string;
  lines: string[];
}

function renderMetric(metric: MetricData, families: Map<string, Family>): void {
  let name = sanitizeMetricName(metric.descriptor.name);
  let type: Family['type'];
  if (metric.dataPointType === DataPointType.SUM && metric.isMonotonic) {
    type = 'counter';
    if (!name.endsWith('_total')) name += '_total';
  } else if (metric.dataPointType === DataPointType.HISTOGRAM) {
    type = 'histogram';
  } else if (metric.dataPointType === DataPointType.EXPONENTIAL_HISTOGRAM) {
    return; // no text-format equivalent; none of loopguard's instruments use it
  } else {
    type = 'gauge';
  }
  const family = families.get(name) ?? { type, help: metric.descriptor.description, lines: [] };
  families.set(name, family);
  if (metric.dataPointType === DataPointType.HISTOGRAM) {
    for (const dp of metric.dataPoints) {
      const { boundaries, counts } = dp.value.buckets;
      let cumulative = 0;
      boundaries.forEach((le, i) => {
        cumulative += counts[i] ?? 0;
        family.lines.push(`${name}_bucket${formatLabels(dp.attributes, ['le', formatValue(le)])} ${cumulative}`);
      });
      family.lines.push(`${name}_bucket${formatLabels(dp.attributes, ['le', '+Inf'])} ${dp.value.count}`);
      family.lines.push(`${name}_sum${formatLabels(dp.attributes)} ${formatValue(dp.value.sum ?? 0)}`);
      family.lines.push(`${name}_count${formatLabels(dp.attributes)} ${dp.value.count}`);
    }
    return;
  }
  for (const dp of metric.dataPoints) {
    family.lines.push(`${name}${formatLabels(dp.attributes)} ${formatValue(dp.value as number)}`);
  }
}

export function renderPrometheusText(resourceMetrics: ResourceMetrics): string {
  const families = new Map<string, Family>();
  for (const scope of resourceMetrics.scopeMetrics) for (const metric of scope.metrics) renderMetric(metric, families);
  let out = '';
  for (const [name, family] of families) {
    if (family.help) out += `# HELP ${name} ${escapeHelp(family.help)}\n`;
    out += `# TYPE ${name} ${family.type}\n`;
    for (const line of family.lines) out += `${line}\n`;
  }
  return out;
}
