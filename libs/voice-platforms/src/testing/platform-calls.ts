import { expect } from '@jest/globals';
import { PlatformCallFailed } from '../platform-call-failed.js';

/** Test support shared by the adapter specs: the PlatformCallFailed a call rejects with (the spec fails if it resolves). */
export async function failure(promise: Promise<unknown>): Promise<PlatformCallFailed> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(PlatformCallFailed);
  return error as PlatformCallFailed;
}

/** Waits until a simulator has finished every (delayed) answer, so none outlives the test. */
export async function settled(simulator: { requests(): Array<{ status: number | null }> }): Promise<void> {
  while (simulator.requests().some((request) => request.status === null)) await new Promise((resolve) => setTimeout(resolve, 20));
}
