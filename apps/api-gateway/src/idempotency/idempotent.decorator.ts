import { applyDecorators, UseInterceptors } from '@nestjs/common';
import { ApiIdempotencyKey } from '../openapi/route-docs.js';
import { IdempotencyInterceptor } from './idempotency.interceptor.js';

/** The route honours Idempotency-Key (and documents it, with the errors it adds). */
export const Idempotent = () => applyDecorators(UseInterceptors(IdempotencyInterceptor), ApiIdempotencyKey());
