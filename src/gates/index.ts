export { Gate, type Decision, type HoldReason, type PendingHold } from './gate.js';
export { liftResult, isWholeFrame, ERA_2026, PROTOCOL_VERSION_META_KEY, type LiftOptions } from './lift.js';
export { LoopDetector, loopAllowList, type LoopDetectorOptions } from './loop-detector.js';
