import type { ClassConstructor } from 'class-transformer';
import { findProblem, plainToInstance, type ValidateOptions } from '@voice/contracts';
import { ServiceFailure } from './rpc-errors.js';

/** Validate an untrusted body and return the typed instance, or throw the first problem as a ServiceFailure. */
export function validateBody<T extends object>(cls: ClassConstructor<T>, body: unknown, options: ValidateOptions = {}): T {
  const problem = findProblem(cls, body, options);
  if (problem) throw new ServiceFailure(problem);
  return plainToInstance(cls, body as object, { enableImplicitConversion: false });
}
