import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { SERVICE_CONTEXT, type ServiceContext } from '../config/service-context.js';
import { RecordCallEvents, type RecordOutcome } from './record-call-events.command.js';
import { recordCallEvents } from './record-call-events.js';

@CommandHandler(RecordCallEvents)
export class RecordCallEventsHandler implements ICommandHandler<RecordCallEvents, RecordOutcome[]> {
  constructor(@Inject(SERVICE_CONTEXT) private readonly ctx: ServiceContext) {}

  execute(command: RecordCallEvents): Promise<RecordOutcome[]> {
    return recordCallEvents(this.ctx.dataSource, command.events);
  }
}
