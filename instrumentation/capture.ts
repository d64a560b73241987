/**
 * Opt-in copies of tool arguments and results on spans (DESIGN: privacy by
 * default). Values under sensitive keys are replaced, the text is cut at a
 * byte limit, and nothing here can throw.
 */
import { previewArgs } from '../src/nudge.js';

export interface CaptureOptions {
  /** Longest text recorded per value, in UTF-16 code units. default 2048 */
  maxLength?: number;
  /** Keys whose values are replaced by "[REDACTED]", at any depth. default /pass(word)?|secret|token|api[-_]?key|authorization|cookie|credential/i */
  redactKeys?: RegExp;
}

export interface ResolvedCapture {
  maxLength: number;
  redactKeys: RegExp;
}

export const DEFAULT_REDACT = /pass(word)?|secret|token|api[-_]?key|authorization|cookie|credential/i;

export function resolveCapture(option: boolean | CaptureOptions | undefined): ResolvedCapture | undefined {
  if (!option) return undefined;
  const o = option === true ? {} : option;
  return { maxLength: o.maxLength ?? 2048, redactKeys: o.redactKeys ?? DEFAULT_REDACT };
}

export function captureAttribute(value: unknown, capture: ResolvedCapture): string {
  let text: string;
  try {
    const seen = new WeakSet<object>();
    text =
      typeof value === 'string'
        ? value
        : (JSON.stringify(value, (key, v: unknown) => {
            if (key !== '' && capture.redactKeys.test(key)) return '[REDACTED]';
            if (typeof v === 'bigint') return v.toString();
            if (typeof v === 'object' && v !== null) {
              if (seen.has(v)) return '[Circular]';
              seen.add(v);
            }
            return v;
          }) ?? String(value));
  } catch {
    text = '[unserialisable]';
  }
  return text.length > capture.maxLength ? `${text.slice(0, capture.maxLength)}…[truncated ${text.length - capture.maxLength}]` : text;
}

/** The arguments as the model reads them in a nudge: in-process, so content stays, but sensitive keys are redacted all the same. */
export function modelArgsPreview(args: unknown, capture: ResolvedCapture | undefined): string {
  return previewArgs(args, capture?.redactKeys ?? DEFAULT_REDACT);
}

/**
 * The arguments as an error message may carry them: errors reach span
 * statuses and logs, so content only with capture on, and redacted.
 */
export function exportableArgsPreview(args: unknown, capture: ResolvedCapture | undefined): string {
  return capture ? previewArgs(args, capture.redactKeys) : '…';
}
