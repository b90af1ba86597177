import type { AgentView, ConversationDetail, TranscriptView } from '@voice/contracts';

/** Typed against the contract views, so an example cannot drift from the shape it illustrates. */
export const AGENT_EXAMPLE: AgentView = {
  id: 'agt_5f0c3b8a9d2e4f6a7b8c9d0e',
  name: 'Front desk',
  voice_platform: 'platform_a',
  phone_number: '+14155550100',
  voice_id: 'alloy',
  language: 'en',
  system_prompt: 'You are the receptionist of Acme Dental.',
  welcome_message: 'Hello, Acme Dental, how can I help?',
  transfer_number: null,
  business_hours: { timezone: 'America/New_York', schedule: [{ day: 'monday', open: '09:00', close: '17:00' }] },
  recording_enabled: true,
  transcription_enabled: true,
  status: 'active',
  metadata: { team: 'front-office' },
  created_at: '2025-01-31T14:05:00.000Z',
  updated_at: '2025-01-31T14:05:00.000Z',
};

export const TRANSCRIPT_EXAMPLE: TranscriptView = {
  conversation_id: 'call_01HZX3',
  language: 'en',
  segments: [
    { speaker: 'agent', text: 'Hello, Acme Dental, how can I help?', start_ms: 0, end_ms: 2100 },
    { speaker: 'caller', text: 'I would like to book a cleaning.', start_ms: 2400, end_ms: 4600 },
  ],
};

export const CONVERSATION_DETAIL_EXAMPLE: ConversationDetail = {
  id: 'call_01HZX3',
  agent_id: AGENT_EXAMPLE.id,
  agent_name: AGENT_EXAMPLE.name,
  caller_number: '+14155550123',
  status: 'completed',
  start_time: '2025-01-31T15:00:00.000Z',
  end_time: '2025-01-31T15:03:05.000Z',
  duration: 185,
  sentiment: 'positive',
  outcome: 'appointment_booked',
  topics: ['booking'],
  has_recording: true,
  has_transcript: true,
  summary: 'Caller booked a cleaning for Tuesday.',
  created_at: '2025-01-31T15:00:00.120Z',
  updated_at: '2025-01-31T15:03:06.004Z',
  content: {
    transcript: TRANSCRIPT_EXAMPLE.segments,
    recording_url: 'https://recordings.example.com/call_01HZX3.mp3',
    language: 'en',
    summary: 'Caller booked a cleaning for Tuesday.',
  },
  analytics: { sentiment: 'positive', topics: ['booking'], keywords: ['cleaning'], satisfaction: { score: 5 }, intent: 'book_appointment' },
  outcomes: { outcome: 'appointment_booked', actions_taken: ['calendar_event_created'], follow_up_tasks: [], integrations: [] },
  technical: { voice_platform: 'platform_a', quality: { mos: 4.3 }, network: null, errors: [] },
  failure_reason: null,
  abandonment_reason: null,
};

export const SRT_EXAMPLE = '1\n00:00:00,000 --> 00:00:02,100\nAgent: Hello, Acme Dental, how can I help?\n\n';
export const VTT_EXAMPLE = 'WEBVTT\n\n00:00:00.000 --> 00:00:02.100\nAgent: Hello, Acme Dental, how can I help?\n\n';
export const TEXT_EXAMPLE = '[00:00] Agent: Hello, Acme Dental, how can I help?\n';
