import type { ServerResponse } from 'node:http';
import { isPlainObject } from '@voice/contracts';
import { PlaceCallError, type PlaceCallOptions } from './calls/call-options.js';
import { FAULT_NAMES, type DownMode, type FaultName } from './faults.js';
import { INVALID_JSON, type Reply, type SimulatorRequest } from './http-io.js';
import type { SimulatorServer } from './simulator-server.js';

/**
 * The simulator's own API under `/__sim`, for tests and scripts in any language: state, request log,
 * fault switches, call placement. It needs no key and is never affected by the faults it switches.
 */
export const CONTROL_ROUTES = [
  'GET    /__sim                         this list, the platform and its base URL',
  'GET    /__sim/state                   { agents, phoneNumbers }',
  'GET    /__sim/agents                  the agents (platform_b: assistants)',
  'GET    /__sim/phone-numbers           the phone numbers and their binding',
  'GET    /__sim/requests                the management requests so far { method, path, query, status, timestamp, body }',
  'DELETE /__sim/requests                forgets them',
  'GET    /__sim/faults                  the fault switches',
  'POST   /__sim/faults/rate-limit       { count?, retryAfterSeconds? = 1 }: 429 with Retry-After for the next count requests (all when absent)',
  'POST   /__sim/faults/server-error     { count?, status? = 500 }: that 5xx for the next count requests (all when absent)',
  'POST   /__sim/faults/delay            { ms }: every answer this much later',
  'POST   /__sim/faults/unauthorized     {}: every key revoked, 401 for every request',
  'POST   /__sim/faults/down             { mode? = "reset", forMs? }: reset = connections dropped unanswered; refuse = port closed (forMs required)',
  'POST   /__sim/faults/no-numbers       { areaCode? }: buying in that area (any area when absent) finds no number',
  'DELETE /__sim/faults                  clears every fault',
  'DELETE /__sim/faults/{name}           clears one (rate-limit, server-error, delay, unauthorized, down, no-numbers; ?areaCode= for one area)',
  'GET    /__sim/api-keys                the valid keys',
  'PUT    /__sim/api-keys                { keys: [..] }: replaces them',
  'PUT    /__sim/webhook-secret          { secret }: the secret call webhooks are signed with',
  'POST   /__sim/calls                   placeCall options as JSON: places a call, answers the deliveries (live: true → 202 at once, delivered as the call unfolds)',
  'PUT    /__sim/recordings/{id}         { turns: [{ role, text, startMs, endMs }], durationMs }: a recording served at /recordings/{id}.wav, synthesised on first request',
  'POST   /__sim/reset                   forgets agents, numbers, requests and faults',
] as const;

export async function handleControlRequest(simulator: SimulatorServer, request: SimulatorRequest, response: ServerResponse): Promise<Reply> {
  if (request.body === INVALID_JSON) return refuse(400, 'request body is not valid JSON');
  const body = isPlainObject(request.body) ? request.body : {};
  const route = `${request.method} /${request.segments.slice(1).join('/')}`;
  try {
    switch (route) {
      case 'GET /':
        return ok({ platform: simulator.platform, url: simulator.url, routes: CONTROL_ROUTES });
      case 'GET /state':
        return ok(simulator.state());
      case 'GET /agents':
        return ok(simulator.agents());
      case 'GET /phone-numbers':
        return ok(simulator.phoneNumbers());
      case 'GET /requests':
        return ok(simulator.requests());
      case 'DELETE /requests':
        simulator.clearRequests();
        return { status: 204 };
      case 'GET /faults':
        return ok(simulator.faultState());
      case 'POST /faults/rate-limit':
        simulator.faults.rateLimit({ count: optionalNumber(body.count), retryAfterSeconds: optionalNumber(body.retryAfterSeconds) });
        return ok(simulator.faultState());
      case 'POST /faults/server-error':
        simulator.faults.serverError({ count: optionalNumber(body.count), status: optionalNumber(body.status) });
        return ok(simulator.faultState());
      case 'POST /faults/delay':
        simulator.faults.delay(requiredNumber(body.ms, 'ms'));
        return ok(simulator.faultState());
      case 'POST /faults/unauthorized':
        simulator.faults.revokeKeys();
        return ok(simulator.faultState());
      case 'POST /faults/down':
        return goDown(simulator, body, response);
      case 'POST /faults/no-numbers':
        simulator.faults.noNumbersAvailable(optionalString(body.areaCode, 'areaCode'));
        return ok(simulator.faultState());
      case 'DELETE /faults':
        simulator.faults.clear();
        return ok(simulator.faultState());
      case 'GET /api-keys':
        return ok({ keys: simulator.getApiKeys() });
      case 'PUT /api-keys':
        if (!Array.isArray(body.keys) || !body.keys.every((key) => typeof key === 'string' && key !== '')) return refuse(400, 'keys must be an array of non-empty strings');
        simulator.setApiKeys(body.keys as string[]);
        return ok({ keys: simulator.getApiKeys() });
      case 'PUT /webhook-secret':
        if (typeof body.secret !== 'string' || body.secret === '') return refuse(400, 'secret must be a non-empty string');
        simulator.setWebhookSecret(body.secret);
        return { status: 204 };
      case 'POST /calls': {
        const options = body as unknown as PlaceCallOptions;
        if (!options.live) return ok(await simulator.placeCall(options));
        const begun = simulator.beginCall(options);
        // The caller learns of the deliveries from its own webhook receiver, as it would from a real platform.
        begun.settled.catch(() => undefined);
        return { status: 202, body: { platform: begun.platform, callId: begun.callId, ...(begun.recordingUrl ? { recordingUrl: begun.recordingUrl } : {}) } };
      }
      case 'POST /reset':
        simulator.reset();
        return { status: 204 };
    }
    if (request.method === 'DELETE' && request.segments.length === 3 && request.segments[1] === 'faults') return clearFault(simulator, request);
    if (request.method === 'PUT' && request.segments.length === 3 && request.segments[1] === 'recordings') {
      simulator.recordings.register(request.segments[2], request.body);
      return { status: 200, body: { url: simulator.recordingUrl(request.segments[2]) } };
    }
    return refuse(404, `no control route ${request.method} ${request.path}; GET ${'/__sim'} lists them`);
  } catch (error) {
    if (error instanceof PlaceCallError) return refuse(error.status, error.message);
    if (error instanceof RangeError || error instanceof TypeError) return refuse(400, error.message);
    throw error;
  }
}

/** `refuse` closes the port the control API itself is on, so it only happens after this answer, and only with a way back. */
function goDown(simulator: SimulatorServer, body: Record<string, unknown>, response: ServerResponse): Reply {
  const mode = (body.mode ?? 'reset') as DownMode;
  if (mode !== 'reset' && mode !== 'refuse') return refuse(400, 'mode must be reset or refuse');
  const forMs = optionalNumber(body.forMs);
  if (forMs !== undefined && (!Number.isInteger(forMs) || forMs <= 0)) return refuse(400, 'forMs must be a positive integer');
  if (mode === 'refuse' && forMs === undefined) return refuse(400, 'mode refuse closes the control API too: give forMs, after which the port listens again');
  response.once('finish', () => {
    simulator.faults.down(mode);
    if (forMs !== undefined) simulator.scheduleUp(forMs);
  });
  return ok({ ...simulator.faultState(), down: { mode } });
}

function clearFault(simulator: SimulatorServer, request: SimulatorRequest): Reply {
  const name = request.segments[2] as FaultName;
  if (!FAULT_NAMES.includes(name)) return refuse(404, `no fault ${name}; known: ${FAULT_NAMES.join(', ')}`);
  const areaCode = request.query.get('areaCode');
  if (name === 'no-numbers' && areaCode !== null) simulator.faults.numbersAvailable(areaCode);
  else simulator.faults.clear(name);
  return ok(simulator.faultState());
}

function ok(body: unknown): Reply {
  return { status: 200, body };
}

function refuse(status: number, message: string): Reply {
  return { status, body: { error: message } };
}

function optionalNumber(value: unknown): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number') throw new TypeError(`expected a number, got ${JSON.stringify(value)}`);
  return value;
}

function requiredNumber(value: unknown, name: string): number {
  const number = optionalNumber(value);
  if (number === undefined) throw new TypeError(`${name} is required`);
  return number;
}

function optionalString(value: unknown, name: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw new TypeError(`${name} must be a string`);
  return value;
}
