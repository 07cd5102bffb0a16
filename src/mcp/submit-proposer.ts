import type { Proposal, ProposalRequest, Proposer, ProposerCapabilities, ProposerIdentity } from '../proposers/proposer.js';

interface Waiting<T> {
  readonly promise: Promise<T>;
  readonly resolve: (value: T) => void;
}

function waiting<T>(): Waiting<T> {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((settle) => (resolve = settle));
  return { promise, resolve };
}

/**
 * A proposer whose proposals come from outside the loop: each `propose` waits for the next
 * {@link SubmitProposer.submit}. The run is the loop's own — its guards, its ledger records, its seal and
 * its acceptance — while an agent working elsewhere (over MCP) hands it one proposal at a time.
 */
export class SubmitProposer implements Proposer {
  readonly name: string;
  readonly identity: ProposerIdentity;
  /** What an agent says of its own usage is not measured: token and cost budgets are refused at start. */
  readonly capabilities: ProposerCapabilities = Object.freeze({ reportsTokens: false, reportsCost: false });
  #asked = waiting<ProposalRequest>();
  #answer: ((proposal: Promise<Proposal>) => void) | undefined;

  /** @param agent who submits (the MCP client's name): another agent is another plan. */
  constructor({ agent }: { agent: string }) {
    if (typeof agent !== 'string' || agent === '') throw new TypeError(`Expected the agent's name, got ${JSON.stringify(agent)}`);
    this.name = `mcp:${agent}`;
    this.identity = Object.freeze({ kind: 'mcp', name: agent });
  }

  propose(request: ProposalRequest): Promise<Proposal> {
    return new Promise<Proposal>((resolve) => {
      this.#answer = resolve;
      this.#asked.resolve(request);
    });
  }

  /** The loop's next request for a proposal: settles when the loop waits for one (at once if it waits now). */
  get requested(): Promise<ProposalRequest> {
    return this.#asked.promise;
  }

  /** Whether the loop waits for a proposal now: the agent has not submitted this attempt, so a stop does not count it. */
  idle(): boolean {
    return this.#answer !== undefined;
  }

  /**
   * Hands the waiting loop its proposal; a rejected one is the attempt's proposer error, as any proposer's.
   * @throws {TypeError} when the loop waits for none.
   */
  submit(proposal: Promise<Proposal>): void {
    const answer = this.#answer;
    if (answer === undefined) throw new TypeError('Expected the loop to wait for a proposal, got none waiting');
    this.#answer = undefined;
    this.#asked = waiting();
    answer(proposal);
  }
}
