// The curated public API, every name picked by hand (test/api/exports.test.ts lists them, so a change
// here is a deliberate one): what a user writing a mission in code or embedding the loop calls, and the
// types of its options and results. The runtime's own machinery (guard-spec builders and schemas, hashes
// and digests, decision validation, the run workspace) stays in its modules. Adapters live on subpaths:
// `redline-loop/sqlite` and `redline-loop/postgres` (the ledger and review queue backends), `redline-loop/ai-sdk`
// (model proposer and judges), `redline-loop/study` (the simulators), `redline-loop/testing` (test doubles).
export { defineMission, type Mission } from './mission/mission.js';
export { loadMission } from './mission/load.js';
export { missionJsonSchema } from './mission/json-schema.js';
export type { MissionInput, MissionSpec, CheckSpec, ProposerSpec, JudgeSpec } from './mission/schema.js';
export type { GuardSpec, GuardSpecInput } from './guards/index.js';

export { runMission, type RunMissionOptions, type RunResult } from './loop/run-mission.js';
export type { SpanLike, TracerLike } from './telemetry/tracer.js';
export type { ShadowResult, ShadowVerdict } from './core/shadow-verdict.js';
export {
  checkReachability,
  type CheckReachabilityOptions,
  type ReachabilityReport,
  type ReachabilityStatus,
} from './loop/check-reachability.js';
export type { Candidate } from './core/candidate.js';
export { OUTCOMES, StopReason, type Outcome, type Verification } from './core/outcome.js';
export type { Acceptance } from './core/acceptance.js';
export type { Brief } from './core/brief.js';
export type { BaselineFile, OmittedBaseline, OmittedReason } from './core/brief-baseline.js';

export { finding, type Check, type CheckContext } from './core/check.js';
export type { Finding, FindingLocation, FindingStatus, Stage, Tier } from './core/finding.js';
export { commandCheck, type CommandCheckOptions } from './checks/command-check.js';
export { testRunnerCheck, type TestRunnerCheckOptions } from './checks/test-runner-check.js';
export { expectedOutputCheck, type ExpectedOutputCheckOptions } from './checks/expected-output-check.js';
export { jsonSchemaCheck, type JsonSchemaCheckOptions } from './checks/json-schema-check.js';
export { scoreCheck, type ScoreCheckOptions, type ScoreFunction, type ScoreResult } from './checks/score-check.js';
export { commandScore } from './checks/command-score.js';
export { minOfTwo } from './checks/min-of-two.js';
export type { ReportFormat } from './checks/reports/index.js';

export {
  type AttemptSummary,
  type BudgetLimits,
  type Guard,
  type GuardInput,
  type RunCounters,
  type StopVerdict,
  confirm,
  margin,
  plateau,
  smooth,
  threshold,
  attemptsBudget,
  budgets,
  costBudget,
  tokensBudget,
  wallClockBudget,
  humanGate,
  noProgress,
  oscillation,
  rejectRepeat,
  repeatedOutput,
  allOf,
  anyOf,
  not,
  type NotVerdict,
  adaptive,
  type AdaptiveOptions,
  adaptiveCdv,
  type AdaptiveCdvOptions,
  AdaptivePriors,
  type GainStats,
  type PriorsSnapshot,
  noiseAware,
  type NoiseAwareOptions,
} from './guards/index.js';

export {
  functionJudge,
  TRANSITIONS,
  type DecideOptions,
  type Decision,
  type Evidence,
  type Judge,
  type Transition,
} from './judge/judge.js';
export { routingJudge } from './judge/routing-judge.js';
export { commandJudge, JUDGE_PROTOCOL, type CommandJudgeOptions } from './judge/command-judge.js';
export { humanJudge, type HumanJudgeOptions } from './judge/human-judge.js';

export {
  PROPOSER_PROTOCOL,
  type Proposal,
  type ProposalRequest,
  type ProposalState,
  type Proposer,
  type ProposerCapabilities,
  type ProposerIdentity,
  type Usage,
  type BudgetsLeft,
} from './proposers/proposer.js';
export { functionProposer } from './proposers/function-proposer.js';
export { commandProposer, type CommandProposerOptions } from './proposers/command-proposer.js';
export { agentProposer, type AgentProposerOptions } from './proposers/agent-proposer.js';
export type { ProposerWorkspace, ProposeOptions } from './proposers/proposer.js';

export { assertSandboxAvailable } from './process/sandbox-problem.js';
export type { Sandbox, BwrapSandbox } from './process/sandbox.js';
export { replayProposer, loadReplay } from './proposers/replay-proposer.js';

export type { Ledger, LedgerHead, LedgerRecord, RecordType, RunRecord, StoredRun, StreamOptions, TaskPriors } from './ledger/ledger.js';
export { MemoryLedger } from './ledger/memory/memory-ledger.js';

export {
  RedlineError,
  MissionError,
  type MissionIssue,
  ProposerError,
  LedgerError,
  EscapeError,
  SnapshotGoneError,
  WorkspaceUnreadableError,
  SandboxUnavailableError,
  MissingPeerError,
  SamePlanError,
  LinkError,
  type LinkProblem,
  RecordParseError,
} from './errors/index.js';

export {
  verifyLedger,
  verifyRun,
  verifySignedRun,
  type LedgerVerification,
  type RunVerification,
  type SignatureOptions,
} from './ledger/verify.js';
export type { ChainProblem } from './core/hash-chain.js';
export type { PublicKeyEntry, Signer, SignatureCheck, SignatureStatus } from './ledger/seal-signature.js';
export { keySigner, readPrivateKey, readPublicKey } from './ledger/signing-key.js';
export { exportJsonl, importJsonl } from './ledger/export.js';
export { replayPolicies, type PolicyReplay, type ReplayPolicy, type ShadowReplay } from './analysis/replay.js';
export { stopQuality, type ReachRow, type StopQualityReport } from './analysis/stop-quality.js';
export type { NoiseEstimate } from './analysis/judge-noise.js';
export { admitRun, AdmitError, type Admission, type AdmitOptions, type AdmitErrorCode, type Conflict } from './analysis/admit.js';
export { openLedger } from './ledger/open-ledger.js';
export { resumeRun, recoverRuns, type Recovery } from './loop/resume.js';
export { rateLimit, ANY_MODEL, type RateLimit } from './limits/rate-limit.js';
export { limiterOver, type LimitStore, type RateGrant, type RateLimiter, type RateRequest } from './limits/rate-limiter.js';
export { MemoryLimitStore } from './limits/memory-limit-store.js';

export type { DeferredHandoff, Handoff, RunHandoff } from './handoff/handoff.js';
export { routeReview, type ReviewChoice, type ReviewRoute } from './handoff/review-route.js';
export {
  MemoryReviewQueue,
  openReviewQueue,
  budgetAlerts,
  ReviewError,
  VERDICT_LABELS,
  type ReviewQueue,
  type ReviewerQueue,
  type QueueAdmin,
  type QueueAudit,
  type ReviewItem,
  type ReviewEntry,
  type Verdict,
  type VerdictInput,
  type ReviewStats,
  type ReviewQueueOptions,
  type FilterRule,
  type FilterRuleInput,
  type FilterRuleEntry,
  type FilterMatch,
  type FilterProposal,
} from './review/index.js';
