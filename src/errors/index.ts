export { RedlineError } from './redline-error.js';
export { MissionError, type MissionIssue } from './mission-error.js';
export { ProposerError } from './proposer-error.js';
export { LedgerError } from './ledger-error.js';
