import type { Detector, Evidence } from './evidence.js';

/**
 * `budget`: the fuses frameworks offer (max turns), as evidence like any
 * other so they share the policy, events and metrics. Each fuse warns at 80 %
 * of its limit and breaks at the limit; a limit of 0 is off.
 */
export const BUDGET_WARNING_SHARE = 0.8;

export const budget: Detector = (h, ctx, out) => {
  const elapsed = h.lastMs - h.firstMs;
  const use = Math.max(
    share(h.total, ctx.maxToolCalls),
    share(elapsed, ctx.maxRunMs),
    share(ctx.tokens, ctx.maxTokens),
  );
  if (use < BUDGET_WARNING_SHARE) return;
  const next = Math.max(share(h.total + 1, ctx.maxToolCalls), use);
  const evidence: Evidence = {
    detector: 'budget',
    tiers: 'budget',
    score: use,
    count: h.total,
    period: 1,
    since: 1,
    toolId: h.toolId(0),
    argsHash: h.argsHash(0),
    next: {
      match: 'any',
      toolId: h.toolId(0),
      argsHash: h.argsHash(0),
      normArgsHash: h.normArgsHash(0),
      resultHash: h.resultHash(0),
      outcome: h.outcome(0),
      informative: h.informative(0),
      namesId: h.namesId(0),
      failure: h.failure(0),
      score: next,
    },
  };
  out.push(evidence);
};

function share(used: number, limit: number): number {
  return limit > 0 ? used / limit : 0;
}
