import { RedlineError } from './redline-error.js';

/**
 * A record read back from storage does not have the shape of its type: a run record of the ledger, an
 * entry of the review queue's journal, or a handoff result. The stored bytes are left as they are.
 */
export class RecordParseError extends RedlineError {
  /** What was read: `run record`, `journal entry`. */
  readonly entry: string;
  /** The run the record belongs to; `''` for a journal entry. */
  readonly runId: string;
  readonly seq: number;
  /** The record's type, as stored. */
  readonly type: string;
  /** The field that does not parse, dotted (`data.summary.signature`); `''` for the whole body. */
  readonly path: string;
  /** What is wrong with it. */
  readonly problem: string;

  constructor({
    entry,
    runId,
    seq,
    type,
    path,
    problem,
  }: {
    entry: string;
    runId: string;
    seq: number;
    type: string;
    path: string;
    problem: string;
  }) {
    const where = runId === '' ? `${entry} ${seq} (${type})` : `run ${runId}: ${entry} ${seq} (${type})`;
    super({ code: 'record.unparsable', message: `${where} does not parse: ${path === '' ? '' : `${path}: `}${problem}` });
    this.name = 'RecordParseError';
    this.entry = entry;
    this.runId = runId;
    this.seq = seq;
    this.type = type;
    this.path = path;
    this.problem = problem;
  }
}
