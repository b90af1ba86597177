import { Inject, Injectable } from '@nestjs/common';
import { DATA_REQUEST_EVENTS_STREAM, DATA_REQUEST_EVENTS_SUBJECT_ROOT, isDataRequestSettled } from '@voice/contracts';
import type { MessageStreams } from '@voice/service-kit';
import type { Logger } from 'pino';
import { GATEWAY_SETTINGS, LOGGER, MESSAGE_STREAMS, type GatewaySettings } from '../tokens.js';
import { AuditEventsStore } from './audit-events.store.js';
import { AuditStreamConsumer, type AuditReading } from './audit-stream-consumer.js';
import { dataRequestSettledEntry } from './audit.rules.js';

/** The end of each data request (completed or failed), from conversations-service's DATA_REQUEST_EVENTS. */
@Injectable()
export class DataRequestEventsAudit extends AuditStreamConsumer {
  constructor(
    store: AuditEventsStore,
    @Inject(MESSAGE_STREAMS) streams: MessageStreams,
    @Inject(GATEWAY_SETTINGS) settings: GatewaySettings,
    @Inject(LOGGER) logger: Logger,
  ) {
    super({ stream: DATA_REQUEST_EVENTS_STREAM, subjectRoot: DATA_REQUEST_EVENTS_SUBJECT_ROOT, what: 'data request event' }, store, streams, settings, logger);
  }

  protected read(data: unknown): AuditReading {
    return isDataRequestSettled(data) ? { entries: [dataRequestSettledEntry(data)] } : 'malformed';
  }
}
