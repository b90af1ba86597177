import { Injectable, type CallHandler, type ExecutionContext, type NestInterceptor } from '@nestjs/common';
import { ServiceFailure } from '@voice/service-kit';
import { catchError, throwError, type Observable } from 'rxjs';
import { AgentRuleViolation } from '../agent/agent.js';

/** The pure domain raises AgentRuleViolation; at the transport edge it becomes a structured ServiceFailure. */
@Injectable()
export class DomainErrorInterceptor implements NestInterceptor {
  intercept(_context: ExecutionContext, next: CallHandler): Observable<unknown> {
    return next.handle().pipe(
      catchError((err: unknown) => throwError(() => (err instanceof AgentRuleViolation ? new ServiceFailure(err.detail) : err))),
    );
  }
}
