import { fail } from '@voice/service-kit';

/** The If-Match version the gateway passed on, if any; a version that cannot exist can never match. */
export function expectedVersionOf(request: { expected_version?: unknown }): number | undefined {
  const v = request.expected_version;
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1) fail('precondition_failed', 'The If-Match version does not match the agent.');
  return v;
}
