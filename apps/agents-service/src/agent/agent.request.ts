/**
 * Reading an agents RPC request at the transport edge: the untrusted body and
 * the If-Match version, before anything reaches a command.
 */
import { plainToInstance, type ServiceError } from '@voice/contracts';
import { fail, ServiceFailure } from '@voice/service-kit';

/**
 * Validate an untrusted body with one of the contract's `find*Problem` checks
 * and return it as plain data with the payload class's transforms applied
 * (e.g. the trimmed name).
 */
export function parsePayload<T extends object>(cls: new () => T, body: unknown, findProblem: (body: unknown) => ServiceError | undefined): T {
  const problem = findProblem(body);
  if (problem) throw new ServiceFailure(problem);
  return JSON.parse(JSON.stringify(plainToInstance(cls, body as object, { enableImplicitConversion: false }))) as T;
}

/** The If-Match version the gateway passed on, if any; a version that cannot exist can never match. */
export function expectedVersionOf(request: { expected_version?: unknown }): number | undefined {
  const v = request.expected_version;
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1) fail('precondition_failed', 'The If-Match version does not match the agent.');
  return v;
}
