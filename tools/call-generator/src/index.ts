export { generateCalls, prng, type GenerateOptions, type SimulatedCall } from './generate-calls.js';
