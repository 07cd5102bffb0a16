import { hash } from 'node:crypto';
import { inspect } from 'node:util';
import type { Candidate } from '../core/candidate.js';
import { canonicalJson } from '../core/canonical-json.js';

/** The part of an AI SDK step (`StepResult`) redline reads: what it said, the tools it called, what it spent. */
export interface StepSlice {
  readonly text: string;
  readonly toolCalls: readonly { readonly toolName: string; readonly input: unknown }[];
  readonly usage: { readonly inputTokens: number | undefined; readonly outputTokens: number | undefined };
}

/** Characters of each tool input and of the step's text a ledger record keeps; the fingerprint covers all of it. */
export const RECORDED_CHARS = 2048;

const sha = (text: string): string => hash('sha256', text, 'hex');

/**
 * Canonical JSON of a tool input, or (for what JSON cannot hold: a cycle, a non-finite number, a bigint) a
 * deterministic full rendering of it: equal inputs give equal text either way.
 */
function canonicalInput(input: unknown): string {
  try {
    return canonicalJson(input);
  } catch {
    return inspect(input, { depth: Infinity, maxArrayLength: Infinity, maxStringLength: Infinity, breakLength: Infinity, sorted: true });
  }
}

const cut = (text: string): string => (text.length <= RECORDED_CHARS ? text : `${text.slice(0, RECORDED_CHARS)}… (${text.length} chars)`);

/**
 * A step as a candidate: its fingerprint is the hash of its tool calls (tool name + canonical input, in
 * order), or of its text when it called no tool, so the same call twice is the same candidate. The
 * candidate's value is what a record keeps of the step: each input and the text cut to
 * {@link RECORDED_CHARS} characters, with the hash of the whole input.
 *
 * @example
 * stepCandidate({ text: '', toolCalls: [{ toolName: 'edit', input: { file: 'a.ts' } }], usage }).hash
 */
export function stepCandidate(step: StepSlice): Candidate {
  const calls = step.toolCalls.map(({ toolName, input }) => ({ tool: String(toolName), input: canonicalInput(input) }));
  const fingerprint = calls.length === 0 ? sha(`text\n${step.text}`) : sha(`calls\n${canonicalJson(calls)}`);
  const value = {
    toolCalls: calls.map(({ tool, input }) => ({ tool: cut(tool), input: cut(input), inputHash: sha(input) })),
    ...(step.text === '' ? {} : { text: cut(step.text) }),
  };
  return { files: {}, value, footprint: [], hash: fingerprint };
}
