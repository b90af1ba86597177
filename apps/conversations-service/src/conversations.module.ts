import { Module, type DynamicModule } from '@nestjs/common';
import { CqrsModule } from '@nestjs/cqrs';
import { AgentEventsConsumer } from './agent-directory/agent-events.consumer.js';
import { RememberAgentsHandler } from './agent-directory/remember-agents.handler.js';
import { CheckAnsweringHandler } from './check-answering/check-answering.handler.js';
import { CheckAnsweringMessageController } from './check-answering/check-answering.message.controller.js';
import { GetConversationStatsHandler, statsMemoryOf } from './conversation-stats/conversation-stats.handler.js';
import { ConversationStatsMessageController } from './conversation-stats/conversation-stats.message.controller.js';
import { ACCOUNT_COLUMNS, SERVICE_CONTEXT, type ServiceContext } from './config/service-context.js';
import { DataRequestEventsPublisher } from './data-requests/data-request-events.publisher.js';
import { DataRequestsMessageController } from './data-requests/data-requests.message.controller.js';
import { DataRequestsWorker } from './data-requests/data-requests.worker.js';
import { ErasureNoticesPublisher } from './erase-conversations/erasure-notices.publisher.js';
import { RetentionSweeper } from './sweep-retention/retention.sweeper.js';
import { GetConversationHandler } from './get-conversation/get-conversation.handler.js';
import { GetConversationMessageController } from './get-conversation/get-conversation.message.controller.js';
import { GetTranscriptHandler } from './get-transcript/get-transcript.handler.js';
import { GetTranscriptMessageController } from './get-transcript/get-transcript.message.controller.js';
import { HealthMessageController } from './health/health.message.controller.js';
import { ListConversationsHandler } from './list-conversations/list-conversations.handler.js';
import { ListConversationsMessageController } from './list-conversations/list-conversations.message.controller.js';
import { CallEventsConsumer } from './record-call-events/call-events.consumer.js';
import { RecordCallEventsHandler } from './record-call-events/record-call-events.handler.js';
import { ParkedEventsReplayer, ReplayWhenAgentsBecomeKnown } from './replay-parked-events/parked-events.replayer.js';
import { ConversationChangesPublisher } from './publish-conversation-changes/conversation-changes.publisher.js';
import { CheckStreamFilterHandler } from './stream-filter/stream-filter.handler.js';
import { StreamFilterMessageController } from './stream-filter/stream-filter.message.controller.js';

@Module({})
export class ConversationsModule {
  static register(context: ServiceContext): DynamicModule {
    return {
      module: ConversationsModule,
      imports: [CqrsModule.forRoot()],
      controllers: [
        ListConversationsMessageController,
        ConversationStatsMessageController,
        GetConversationMessageController,
        GetTranscriptMessageController,
        HealthMessageController,
        CheckAnsweringMessageController,
        StreamFilterMessageController,
        DataRequestsMessageController,
      ],
      providers: [
        { provide: SERVICE_CONTEXT, useValue: context },
        // Closed by GetConversationStatsHandler when the module is destroyed.
        { provide: ACCOUNT_COLUMNS, useValue: statsMemoryOf(context) },
        RecordCallEventsHandler,
        RememberAgentsHandler,
        ListConversationsHandler,
        GetConversationStatsHandler,
        GetConversationHandler,
        GetTranscriptHandler,
        CheckAnsweringHandler,
        CallEventsConsumer,
        AgentEventsConsumer,
        ParkedEventsReplayer,
        ReplayWhenAgentsBecomeKnown,
        ConversationChangesPublisher,
        CheckStreamFilterHandler,
        ErasureNoticesPublisher,
        DataRequestsWorker,
        DataRequestEventsPublisher,
        RetentionSweeper,
      ],
    };
  }
}
