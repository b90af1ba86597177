export { simulatorStateFiles, startSimulators, type RunningSimulators, type StartSimulatorsOptions } from './start-simulators.js';
export { PlatformASimulator, type PlatformAPhoneNumber } from './platform-a/platform-a-simulator.js';
export { PlatformBSimulator, type PlatformBPhoneNumber } from './platform-b/platform-b-simulator.js';
export { SimulatorServer, CONTROL_PREFIX, DEFAULT_API_KEY, DEFAULT_WEBHOOK_SECRET, type PersistedState, type RequestLogEntry, type SimulatorOptions, type SimulatorState } from './simulator-server.js';
export { FaultSwitches, FAULT_NAMES, type DownMode, type FaultName, type FaultState } from './faults.js';
export { CONTROL_ROUTES } from './control-api.js';
export { signPlatformAWebhook, PLATFORM_A_SIGNATURE_HEADER } from './platform-a/signing.js';
export { signPlatformBWebhook, PLATFORM_B_SIGNATURE_HEADER, PLATFORM_B_TIMESTAMP_HEADER } from './platform-b/signing.js';
export { PLATFORM_A_DEFAULT_VOICE, PLATFORM_A_VOICES, PLATFORM_A_LIMITS, type PlatformAAgent } from './platform-a/agent-fields.js';
export { PLATFORM_B_DEFAULT_VOICE, PLATFORM_B_VOICES, PLATFORM_B_LIMITS, type PlatformBAssistant } from './platform-b/assistant-fields.js';
export { PLATFORM_A_DIAL_FAILURES, PLATFORM_A_UNKNOWN_EVENT_TYPE } from './platform-a/call-events.js';
export { PLATFORM_B_DIAL_FAILURES, PLATFORM_B_UNKNOWN_EVENT_TYPE } from './platform-b/call-events.js';
export { DEFAULT_CONVERSATION } from './calls/call-timeline.js';
export { RecordingLibrary, RECORDINGS_PREFIX } from './recordings/recording-library.js';
export { byteRange, RECORDING_SAMPLE_RATE, wavFile, type RecordingScript, type RecordingTurn } from './recordings/call-audio.js';
export {
  CALL_OUTCOMES,
  PlaceCallError,
  type BegunCall,
  type CallAnalysisOptions,
  type CallChaosOptions,
  type CallOutcome,
  type CallSentiment,
  type CallTurn,
  type DeliveryAttempt,
  type DeliveryOptions,
  type EventDelivery,
  type PlaceCallOptions,
  type PlacedCall,
} from './calls/call-options.js';
export { startWebhookReceiver, type ReceivedWebhook, type WebhookReceiver, type WebhookReceiverOptions } from './webhook-receiver.js';
