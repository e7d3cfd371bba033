export { Gate, type Decision, type HoldReason, type PendingHold } from './gate.js';
export { holdPlan, type HoldPlan, type HoldQuery } from './hold-policy.js';
export { RuleSet, NO_RULES, hitsAllowed, type CompiledRule, type LogpointHit } from './rules.js';
export {
  outcomeOf,
  ABORT_CODE,
  ABORT_MESSAGE,
  type Outcome,
  type ForwardOutcome,
  type AnswerOutcome,
  type AnswerFrameOutcome,
  type ReplaceOutcome,
  type FailOutcome,
  type RetryOutcome,
  type DropOutcome,
  type HeldKind,
  type DecisionInput,
} from './outcome.js';
export {
  DebuggerGate,
  type DebuggerGateOptions,
  type GateReporter,
  type HoldOpened,
  type HoldReleased,
  type HoldUpdated,
  type HoldSubject,
  type Logpoint,
} from './debugger-gate.js';
export { cancelledBy } from './give-up.js';
export { liftResult, liftOptionsFor, eraOf, isWholeFrame, ERA_2026, PROTOCOL_VERSION_META_KEY, type LiftOptions } from './lift.js';
export { LoopDetector, loopAllowList, type LoopDetectorOptions } from './loop-detector.js';
