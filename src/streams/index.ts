export * from './frame.js';
export { LineFramer, DEFAULT_MAX_FRAME_BYTES, type LineFramerOptions } from './line-framer.js';
export { Classifier, classify, type ClassifierOptions } from './classifier.js';
export { Correlator } from './correlator.js';
export { idKey, type CorrelationKey } from './exact-id.js';
export { GateTransform, type FrameGate, type GateTransformOptions } from './gate-transform.js';
export { Lifter, madeFrame, type LifterOptions } from './lifter.js';
export { madeBytes, madeValue } from './made-frame.js';
export { FrameWriter, type FrameWriterOptions } from './frame-writer.js';
export {
  createRelay,
  type Relay,
  type RelayDirection,
  type RelayEndpoint,
  type RelayOptions,
} from './create-relay.js';
export {
  nodeForMethod,
  nodeFor,
  namingParam,
  SESSION_NODE_ID,
  PROTOCOL_NODE_ID,
  STDOUT_NOISE_NODE_ID,
  STDOUT_NOISE_NODE,
} from './node-naming.js';
