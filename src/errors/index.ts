export { RedlineError } from './redline-error.js';
export { MissionError, type MissionIssue } from './mission-error.js';
export { ProposerError } from './proposer-error.js';
export { LedgerError } from './ledger-error.js';
export { EscapeError } from './escape-error.js';
export { SnapshotGoneError } from './snapshot-gone-error.js';
export { WorkspaceUnreadableError } from './workspace-unreadable-error.js';
export { SandboxUnavailableError } from './sandbox-unavailable-error.js';
export { MissingPeerError } from './missing-peer-error.js';
