// Live judge noise: the σ of a mission's score judge, measured on recorded candidates.
export { calibrateJudge, type CalibrateJudgeOptions, type JudgeCalibration, type NoiseRow } from './calibrate-judge.js';
export { recentCandidates, type RecordedCandidate } from './recorded-candidates.js';
export { sigmaInterval } from './chi-square.js';
