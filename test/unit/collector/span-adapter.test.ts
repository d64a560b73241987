import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import { anyValueToAttribute, attributeToAnyValue } from '../../../src/collector/attributes.js';
import type { OtlpSpan } from '../../../src/collector/otlp-model.js';
import { hrTimeToNanos, nanosToHrTime, OtlpSpanAdapter } from '../../../src/collector/span-adapter.js';

const id = (hex: string): Buffer => Buffer.from(hex, 'hex');

function record(extra: Partial<OtlpSpan> = {}): OtlpSpan {
  return {
    traceId: id('5b8efff798038103d269b633813fc60c'),
    spanId: id('eee19b7ec3c1b174'),
    name: 'execute_tool search',
    kind: 3,
    startTimeUnixNano: '1700000000123456789',
    endTimeUnixNano: '1700000001000000001',
    attributes: [
      { key: 'gen_ai.tool.name', value: { stringValue: 'search' } },
      { key: 'n', value: { intValue: '7' } },
    ],
    ...extra,
  };
}

describe('OtlpSpanAdapter', () => {
  it('presents an OTLP span as SpanShape', () => {
    const span = new OtlpSpanAdapter(
      record({ parentSpanId: id('eee19b7ec3c1b173'), status: { code: 2, message: 'boom' }, flags: 0x101, traceState: 'a=b' }),
      { attributes: [{ key: 'service.name', value: { stringValue: 'agent' } }] },
      { name: 'scope', version: '1' },
    );
    expect(span.name).toBe('execute_tool search');
    expect(span.kind).toBe(SpanKind.CLIENT);
    expect(span.status).toEqual({ code: SpanStatusCode.ERROR, message: 'boom' });
    expect(span.startTime).toEqual([1_700_000_000, 123_456_789]);
    expect(span.endTime).toEqual([1_700_000_001, 1]);
    expect(span.duration).toEqual([0, 876_543_212]);
    const ctx = span.spanContext();
    expect(ctx).toMatchObject({ traceId: '5b8efff798038103d269b633813fc60c', spanId: 'eee19b7ec3c1b174', traceFlags: 1, isRemote: false });
    expect(ctx.traceState?.get('a')).toBe('b');
    expect(span.parentSpanContext).toMatchObject({ traceId: ctx.traceId, spanId: 'eee19b7ec3c1b173' });
    expect(span.parentSpanId).toBe('eee19b7ec3c1b173');
    expect(span.attributes).toEqual({ 'gen_ai.tool.name': 'search', n: 7 });
    expect(span.resource.attributes).toEqual({ 'service.name': 'agent' });
    expect(span.instrumentationScope).toEqual({ name: 'scope', version: '1' });
  });

  it('reads unspecified kind as INTERNAL, no parent as a root, no status as UNSET', () => {
    const span = new OtlpSpanAdapter(record({ kind: 0 }));
    expect(span.kind).toBe(SpanKind.INTERNAL);
    expect(span.parentSpanContext).toBeUndefined();
    expect(span.parentSpanId).toBeUndefined();
    expect(span.status).toEqual({ code: SpanStatusCode.UNSET });
  });

  it('writes attributes and events into the record, which is what gets forwarded', () => {
    const rec = record();
    const span = new OtlpSpanAdapter(rec);
    span.setAttribute('loopguard.step', 3);
    span.setAttribute('n', 8.5);
    span.setAttribute('loopguard.level', 'warning');
    span.setAttributes({ list: ['a', 'b'], flag: true });
    expect(span.attributes).toMatchObject({ 'loopguard.step': 3, n: 8.5, 'loopguard.level': 'warning', list: ['a', 'b'], flag: true });
    expect(rec.attributes).toEqual([
      { key: 'gen_ai.tool.name', value: { stringValue: 'search' } },
      { key: 'n', value: { doubleValue: 8.5 } },
      { key: 'loopguard.step', value: { intValue: '3' } },
      { key: 'loopguard.level', value: { stringValue: 'warning' } },
      { key: 'list', value: { arrayValue: { values: [{ stringValue: 'a' }, { stringValue: 'b' }] } } },
      { key: 'flag', value: { boolValue: true } },
    ]);

    span.addEvent('loopguard.loop_detected', { 'loopguard.count': 4 });
    span.addEvent('at-hrtime', {}, [1_700_000_000, 5]);
    span.addEvent('at-date', new Date(1_700_000_000_250));
    expect(rec.events).toEqual([
      { name: 'loopguard.loop_detected', timeUnixNano: '1700000001000000001', attributes: [{ key: 'loopguard.count', value: { intValue: '4' } }] },
      { name: 'at-hrtime', timeUnixNano: '1700000000000000005' },
      { name: 'at-date', timeUnixNano: '1700000000250000000' },
    ]);
    expect(span.events.map((e) => e.name)).toEqual(['loopguard.loop_detected', 'at-hrtime', 'at-date']);
  });
});

describe('attribute conversions', () => {
  it('turns structured OTLP values into values the engine can hash', () => {
    expect(
      anyValueToAttribute({
        kvlistValue: { values: [{ key: 'q', value: { stringValue: 'x' } }, { key: 'n', value: { arrayValue: { values: [{ intValue: '1' }] } } }] },
      }),
    ).toBe('{"q":"x","n":[1]}');
    expect(anyValueToAttribute({ bytesValue: Buffer.from([1, 2, 3]) })).toBe('AQID');
    expect(anyValueToAttribute({ arrayValue: { values: [{ intValue: '1' }, { doubleValue: 2.5 }] } })).toEqual([1, 2.5]);
    expect(anyValueToAttribute({ arrayValue: { values: [{ stringValue: 'a' }, { intValue: '1' }] } })).toEqual(['a', '1']);
    expect(anyValueToAttribute({})).toBeUndefined();
    expect(attributeToAnyValue(2 ** 60)).toEqual({ doubleValue: 2 ** 60 });
  });

  it('converts between nanosecond strings and HrTime exactly', () => {
    expect(nanosToHrTime('1544712660000000001')).toEqual([1_544_712_660, 1]);
    expect(hrTimeToNanos([1_544_712_660, 999_999_999])).toBe('1544712660999999999');
    expect(nanosToHrTime(undefined)).toEqual([0, 0]);
    expect(nanosToHrTime('999')).toEqual([0, 999]);
    expect(nanosToHrTime('1000000000')).toEqual([1, 0]);
    expect(nanosToHrTime('18446744073709551615')).toEqual([18_446_744_073, 709_551_615]);
    expect(nanosToHrTime('0001000000005')).toEqual([1, 5]);
  });

  it('reads what is not up to 20 decimal digits as Number reads its slices', () => {
    for (const text of ['123456789012345678901', '12x4567890123', '-1000000000', '1e10000000000']) {
      expect(nanosToHrTime(text)).toEqual([Number(text.slice(0, -9)), Number(text.slice(-9))]);
    }
  });
});
