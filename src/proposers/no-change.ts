import type { Finding } from '../core/finding.js';
import { accountStatus, lastWords, proposerNoun, type ProposerAccount } from '../core/proposer-account.js';

/** The pseudo-check the runtime records a proposer's own findings under (its errors, an attempt that changed nothing). */
export const PROPOSER_CHECK = 'proposer';
/** The reason code of an attempt whose proposal left the candidate as it was. */
export const NO_CHANGE = 'proposer.no_change';

/** The reason code of an attempt whose proposer failed on its environment (an agent preset's endpoint or key). */
export const ENVIRONMENT_FAILURE = 'proposer.environment';

/** Whether an attempt's findings say its proposer failed on its environment. */
export function failedOnEnvironment(findings: readonly Finding[]): boolean {
  return findings.some((item) => item.check === PROPOSER_CHECK && item.reasonCodes.includes(ENVIRONMENT_FAILURE));
}

/** Whether a finding is the one {@link noChangeFindings} puts first. */
const isNoChange = (item: Finding): boolean => item.check === PROPOSER_CHECK && item.reasonCodes.includes(NO_CHANGE);

/** Whether an attempt's findings say its proposal changed nothing: no check ran on it. */
export function changedNothing(findings: readonly Finding[]): boolean {
  return findings.some(isNoChange);
}

/**
 * The findings of an attempt whose proposal yields the candidate the run already had (docs/agents.md): a
 * `proposer.no_change` failure, in words with the proposer's account ("the agent changed nothing (exit 0,
 * 3.1 s); its last stderr: …"), followed by the latest check findings (`latest`, without the proposer's
 * own), which still hold for the unchanged candidate: no check runs again.
 */
export function noChangeFindings({
  latest,
  account,
  kind,
}: {
  latest: readonly Finding[];
  account: ProposerAccount | undefined;
  /** The proposer's kind (`agent`, `command`, `mcp`, …), when the account does not say it. */
  kind: string | undefined;
}): Finding[] {
  const said = account === undefined ? '' : ` (${accountStatus(account)}); ${lastWords(account)}`;
  return [
    {
      check: PROPOSER_CHECK,
      stage: 'fast',
      tier: 'format',
      status: 'fail',
      reasonCodes: [NO_CHANGE],
      message: `${proposerNoun(account?.kind ?? kind)} changed nothing${said}\nNo check ran again: the findings after this one are those of the unchanged candidate.`,
    },
    ...latest.filter((item) => item.check !== PROPOSER_CHECK),
  ];
}
