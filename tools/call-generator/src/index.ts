export { generateCalls, prng, type GenerateOptions, type SimulatedCall } from './generate-calls.js';
export {
  pickScenario,
  scenarioCall,
  speakingTimeMs,
  SCENARIO_DURATION_MS,
  SCENARIO_MIX,
  SCENARIO_NAMES,
  type ScenarioAnalysis,
  type ScenarioCall,
  type ScenarioEnd,
  type ScenarioName,
  type ScenarioSentiment,
  type ScriptedTurn,
} from './demo-scenarios.js';
export { historyCallEvents, type HistoryCallOptions } from './demo-history.js';
