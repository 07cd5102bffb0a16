import { reasonCodeCount } from '../checks/check-span.js';
import type { Finding } from '../core/finding.js';
import type { Judge } from '../judge/judge.js';
import type { Proposer, Usage } from '../proposers/proposer.js';
import type { ChildSpan, SpanAttributes, TraceSpan } from '../telemetry/trace-span.js';
import type { Verification } from '../core/outcome.js';
import type { RunCounters } from '../guards/guard.js';
import type { Ending, RecordedDecision } from './ending.js';

// The span tree of a run (docs/observability.md): names and attributes follow the OpenTelemetry GenAI
// semantic conventions where one applies, the rest are under `redline.`.

/** The run's own span, opened before anything else of the run (a resumed run's: from the record it resumes at). */
export function runSpan(missionId: string, resumedFromSeq: number | undefined): { name: string; attributes: SpanAttributes } {
  return {
    name: 'invoke_agent redline',
    attributes: {
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': 'redline',
      'redline.mission.id': missionId,
      'redline.resumed': resumedFromSeq !== undefined,
      'redline.resumed.from_seq': resumedFromSeq,
    },
  };
}

/**
 * How the run was sealed, on its span: a run that ends `blocked` or `failed_with_evidence` fails it, with its
 * stop reason as `error.type`.
 */
export function traceSeal(span: TraceSpan, { ending, verification, attempts, chainHead, findings, counters }: SealTrace): void {
  span.set({
    'redline.outcome': ending.outcome,
    'redline.verification': verification,
    'redline.stop_reason': ending.stopReason,
    'redline.guard': ending.guard,
    'redline.attempts': attempts,
    'redline.chain.head': chainHead,
    'redline.reason_codes.count': reasonCodeCount(findings),
    'gen_ai.usage.input_tokens': counters.inputTokens,
    'gen_ai.usage.output_tokens': counters.outputTokens,
  });
  if (ending.outcome === 'blocked' || ending.outcome === 'failed_with_evidence')
    span.fail({ type: ending.stopReason, message: `${ending.outcome}: ${ending.detail}` });
}

/** What {@link traceSeal} puts on the run's span. */
export interface SealTrace {
  readonly ending: Ending;
  readonly verification: Verification;
  readonly attempts: number;
  /** The hash of the seal record: the head of the run's chain. */
  readonly chainHead: string | undefined;
  readonly findings: readonly Finding[];
  readonly counters: RunCounters;
}

/** The model a proposer or judge asks, when it is a model role (`model:<id>`). */
function modelOf(name: string): string | undefined {
  return name.startsWith('model:') ? name.slice('model:'.length) : undefined;
}

/** A model call is a `chat` span; any other proposer is the agent redline invokes. */
export function proposalSpan(proposer: Proposer): ChildSpan {
  const model = proposer.identity?.kind === 'model' ? proposer.identity.name : modelOf(proposer.name);
  if (model !== undefined)
    return { name: `chat ${model}`, client: true, attributes: { 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': model } };
  return {
    name: `invoke_agent ${proposer.name}`,
    attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': proposer.name },
  };
}

/** A judge that asks a model is a `chat` span; any other is redline's own decision step. */
export function judgeSpan(judge: Judge): ChildSpan {
  const model = modelOf(judge.name);
  const attributes = { 'redline.judge': judge.name };
  if (model === undefined) return { name: 'redline.decide', attributes };
  return {
    name: `chat ${model}`,
    client: true,
    attributes: { ...attributes, 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': model },
  };
}

/** A check is a tool the loop executes on the candidate. */
/** Token usage as the GenAI conventions name it. */
export function usageAttributes(usage: Usage): SpanAttributes {
  return {
    'gen_ai.usage.input_tokens': usage.inputTokens,
    'gen_ai.usage.output_tokens': usage.outputTokens,
    'redline.usage.cost_usd': usage.costUsd,
  };
}

/** The judge's transition (or the rejection of its answer) and the stop verdict it was given. */
export function traceDecision(span: TraceSpan, decided: RecordedDecision): void {
  span.set({
    'redline.decision.transition': decided.decision?.transition,
    'redline.decision.rejection': decided.rejection?.code,
    'redline.decision.overridden': decided.overridden,
    'redline.verdict.guard': decided.verdict?.guard,
    'redline.verdict.reason': decided.verdict?.reason,
  });
}
