/**
 * The demo's calls, one coherent conversation each: a scenario (billing dispute, appointment booking…), a
 * transcript written from it with names, dates and amounts drawn at random, speech timing, and the analysis a
 * platform would write for exactly that transcript (its summary repeats what was said, its outcome and
 * sentiment follow the branch the conversation took). Pure and seeded: the same random source gives the same call.
 */

export type ScenarioName =
  | 'billing_dispute'
  | 'appointment_booking'
  | 'cancellation'
  | 'technical_support'
  | 'wrong_number'
  | 'voicemail'
  | 'caller_hangup'
  | 'failed_call';

export const SCENARIO_NAMES: readonly ScenarioName[] = [
  'billing_dispute',
  'appointment_booking',
  'cancellation',
  'technical_support',
  'wrong_number',
  'voicemail',
  'caller_hangup',
  'failed_call',
];

/** How the call ends, in the platform simulators' terms: a hang-up before the agent spoke, a dial failure, or a conversation. */
export type ScenarioEnd = 'completed' | 'caller-hangup' | 'failed';

export type ScenarioSentiment = 'positive' | 'neutral' | 'negative' | 'unknown';

export interface ScriptedTurn {
  role: 'agent' | 'user';
  text: string;
  /** Offsets from the moment the call connected, ms. */
  startMs: number;
  endMs: number;
}

export interface ScenarioAnalysis {
  summary: string;
  topics: string[];
  /** snake_case, as platforms send it. */
  outcome: string;
  sentiment: ScenarioSentiment;
  successful: boolean;
}

export interface ScenarioCall {
  scenario: ScenarioName;
  end: ScenarioEnd;
  /** Whether the call was answered; a failed dial never is. */
  connected: boolean;
  turns: ScriptedTurn[];
  /** From the answer to the hang-up (0 when the call never connected). */
  durationMs: number;
  /** E.164, or null when the caller withheld the number. */
  callerNumber: string | null;
  analysis: ScenarioAnalysis;
}

/** Bounds of each scenario's duration, ms: the unit tests hold every generated call to them. */
export const SCENARIO_DURATION_MS: Record<ScenarioName, { min: number; max: number }> = {
  billing_dispute: { min: 25_000, max: 120_000 },
  appointment_booking: { min: 20_000, max: 120_000 },
  cancellation: { min: 15_000, max: 100_000 },
  technical_support: { min: 15_000, max: 100_000 },
  wrong_number: { min: 6_000, max: 45_000 },
  voicemail: { min: 8_000, max: 60_000 },
  caller_hangup: { min: 1_000, max: 6_000 },
  failed_call: { min: 0, max: 0 },
};

type Random = () => number;
type Line = readonly ['agent' | 'user', string];

interface Written {
  lines: Line[];
  analysis: ScenarioAnalysis;
}

const FIRST_NAMES = ['Maria', 'James', 'Priya', 'Daniel', 'Sofia', 'Kevin', 'Aisha', 'Tom', 'Elena', 'Marcus', 'Grace', 'Luis', 'Hannah', 'Omar', 'Chloe', 'Victor'];
const LAST_NAMES = ['Lopez', 'Chen', 'Patel', 'Walker', 'Rossi', 'Nguyen', 'Okafor', 'Murphy', 'Kowalski', 'Bennett', 'Silva', 'Fischer', 'Haddad', 'Brooks'];
const WEEKDAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday'];
const TIMES = ['8:30 AM', '9:00 AM', '9:45 AM', '10:30 AM', '11:15 AM', '1:00 PM', '2:30 PM', '3:15 PM', '4:00 PM', '5:00 PM'];
const SERVICES = ['cleaning', 'check-up', 'filling', 'whitening consultation', 'crown fitting'];
const DATES = ['March 3rd', 'March 18th', 'April 2nd', 'April 21st', 'May 7th', 'May 29th', 'June 11th'];
const OTHER_BUSINESSES = ["Luigi's Pizza", 'the city library', 'Northside Veterinary Clinic', 'Quick Lube auto service', 'the Bayview Hotel'];
const AGENT_NAMES = ['Ava', 'Sam', 'Nora', 'Leo'];

const pick = <T>(random: Random, items: readonly T[]): T => items[Math.floor(random() * items.length)];
const chance = (random: Random, p: number): boolean => random() < p;
const between = (random: Random, min: number, max: number): number => min + random() * (max - min);

function amount(random: Random): string {
  const dollars = 60 + Math.floor(random() * 380);
  const cents = pick(random, ['00', '50', '25', '80', '40']);
  return `$${dollars}.${cents}`;
}

function twoTimes(random: Random): [string, string] {
  const first = Math.floor(random() * (TIMES.length - 1));
  const second = first + 1 + Math.floor(random() * (TIMES.length - first - 1));
  return [TIMES[first], TIMES[second]];
}

function person(random: Random): { first: string; full: string } {
  const first = pick(random, FIRST_NAMES);
  return { first, full: `${first} ${pick(random, LAST_NAMES)}` };
}

function greeting(random: Random): string {
  return pick(random, [
    'Thanks for calling Harbor Dental, how can I help you today?',
    `Harbor Dental, this is ${pick(random, AGENT_NAMES)}. How can I help?`,
    'Good morning, Harbor Dental. What can I do for you?',
  ]);
}

function billingDispute(random: Random): Written {
  const who = person(random);
  const charge = amount(random);
  const date = pick(random, DATES);
  const opening = pick(random, [
    `Hi, I was charged ${charge} for my visit on ${date}, but my insurance should have covered it.`,
    `Hello, I think there's a mistake on my bill. I was charged ${charge} for the visit on ${date}.`,
  ]);
  const lines: Line[] = [
    ['agent', pick(random, ['Harbor Dental billing, how can I help?', `Billing, this is ${pick(random, AGENT_NAMES)}. How can I help you?`])],
    ['user', opening],
    ['agent', "I'm sorry about that. Could I have your full name to pull up the account?"],
    ['user', `Sure, it's ${who.full}.`],
    ['agent', `Thank you, ${who.first}. I can see the charge of ${charge} from ${date}.`],
  ];
  if (chance(random, 0.6)) {
    lines.push(
      ['agent', "The claim was never sent to your insurer. I've resubmitted it and put the charge on hold, so you won't owe anything while it's processed."],
      ['user', pick(random, ["Oh, that's a relief. Thank you!", 'Great, thanks for sorting that out.'])],
      ['agent', "You're welcome. You'll get an updated statement within ten days. Is there anything else?"],
      ['user', "No, that's everything. Bye."],
    );
    return {
      lines,
      analysis: {
        summary: `${who.first} disputed a ${charge} charge for the visit on ${date}; the insurance claim had never been sent, so it was resubmitted and the charge put on hold.`,
        topics: ['billing', 'insurance'],
        outcome: 'charge_on_hold',
        sentiment: 'positive',
        successful: true,
      },
    };
  }
  lines.push(
    ['agent', "Your insurer denied part of the claim, and I can't change that myself. I'll pass this to our billing manager, who will call you back within two business days."],
    ['user', pick(random, ["This is really frustrating. I've already called about this twice.", "Honestly, that's annoying. Nobody told me it was denied."])],
    ['agent', "I understand, and I'm sorry. I've marked the case as urgent."],
    ['user', 'Fine. Please make sure someone actually calls.'],
  );
  return {
    lines,
    analysis: {
      summary: `${who.first} disputed a ${charge} charge for the visit on ${date} that the insurer had partly denied; escalated to the billing manager, who will call back within two business days.`,
      topics: ['billing', 'insurance', 'escalation'],
      outcome: 'escalated_to_billing_manager',
      sentiment: 'negative',
      successful: false,
    },
  };
}

function appointmentBooking(random: Random): Written {
  const who = person(random);
  const service = pick(random, SERVICES);
  const day = pick(random, WEEKDAYS);
  const [early, late] = twoTimes(random);
  const chosen = chance(random, 0.5) ? early : late;
  const newPatient = chance(random, 0.35);
  const lines: Line[] = [
    ['agent', greeting(random)],
    ['user', pick(random, [`Hi, I'd like to book a ${service}, ideally on ${day}.`, `Hello, could I get an appointment for a ${service} on ${day}?`])],
    ['agent', 'Of course. Are you already a patient with us?'],
  ];
  if (newPatient) lines.push(['user', "No, this would be my first visit."], ['agent', 'Welcome! Could I have your full name?'], ['user', `It's ${who.full}.`]);
  else lines.push(['user', `Yes, my name is ${who.full}.`]);
  lines.push(
    ['agent', `Thanks, ${who.first}. On ${day} I have ${early} or ${late}. Which works better?`],
    ['user', `${chosen}, please.`],
    ['agent', `You're booked for a ${service} on ${day} at ${chosen}. You'll get a text reminder the day before.`],
    ['user', pick(random, ['Perfect, thank you.', 'Great, see you then.'])],
  );
  return {
    lines,
    analysis: {
      summary: `${who.first}${newPatient ? ', a new patient,' : ''} booked a ${service} on ${day} at ${chosen}.`,
      topics: newPatient ? ['appointment', 'scheduling', 'new_patient'] : ['appointment', 'scheduling'],
      outcome: 'appointment_booked',
      sentiment: 'positive',
      successful: true,
    },
  };
}

function cancellation(random: Random): Written {
  const who = person(random);
  const service = pick(random, SERVICES);
  const day = pick(random, WEEKDAYS);
  const [time, later] = twoTimes(random);
  const lines: Line[] = [
    ['agent', greeting(random)],
    ['user', pick(random, [`Hi, I need to cancel my appointment on ${day}.`, `Hello, I can't make it on ${day}, I'd like to cancel.`])],
    ['agent', "I can help with that. What's the name on the appointment?"],
    ['user', `${who.full}.`],
    ['agent', `I see your ${service} on ${day} at ${time}. Would you like to reschedule instead?`],
  ];
  if (chance(random, 0.5)) {
    const newDay = pick(random, WEEKDAYS.filter((d) => d !== day));
    lines.push(
      ['user', 'Actually, yes. Could we do next week instead?'],
      ['agent', `${newDay} at ${later} is open next week. Shall I move it there?`],
      ['user', 'Yes, that works.'],
      ['agent', `Done. Your ${service} is now on ${newDay} at ${later}.`],
    );
    return {
      lines,
      analysis: {
        summary: `${who.first} asked to cancel the ${service} on ${day} at ${time} and rescheduled it to ${newDay} at ${later} next week.`,
        topics: ['appointment', 'rescheduling'],
        outcome: 'appointment_rescheduled',
        sentiment: 'positive',
        successful: true,
      },
    };
  }
  lines.push(
    ['user', "No, please just cancel it. I'll call back when I know my schedule."],
    ['agent', `No problem. Your ${service} on ${day} is cancelled.`],
    ['user', 'Thanks.'],
  );
  return {
    lines,
    analysis: {
      summary: `${who.first} cancelled the ${service} on ${day} at ${time} and will call back to book again.`,
      topics: ['appointment', 'cancellation'],
      outcome: 'appointment_cancelled',
      sentiment: 'neutral',
      successful: true,
    },
  };
}

function technicalSupport(random: Random): Written {
  const who = person(random);
  const portal = chance(random, 0.5);
  const problem = portal ? 'log in to the patient portal' : 'pay my bill online';
  const lines: Line[] = [
    ['agent', greeting(random)],
    ['user', portal ? "Hi, I can't log in to the patient portal. It keeps saying my password is wrong." : 'Hi, the online payment page gives me an error when I try to pay my bill.'],
    ['agent', 'Sorry about that. Whose account is it under?'],
    ['user', `It's under my name, ${who.full}.`],
  ];
  const topic = portal ? 'patient_portal' : 'online_payment';
  if (chance(random, 0.65)) {
    lines.push(
      ['agent', portal ? "I've sent a password reset link to the email on file. Could you try it now?" : "I've cleared the stuck payment on your account. Could you try paying again now?"],
      ['user', pick(random, ["Okay, one moment. Yes, it worked. Thanks!", "Let me see. Yes, that did it. Thank you."])],
      ['agent', 'Glad it works. Have a good day!'],
    );
    return {
      lines,
      analysis: {
        summary: `${who.first} could not ${problem.replace('my bill', 'a bill')}; ${portal ? 'a password reset link' : 'clearing a stuck payment'} fixed it during the call.`,
        topics: ['technical_support', topic],
        outcome: 'issue_resolved',
        sentiment: 'positive',
        successful: true,
      },
    };
  }
  lines.push(
    ['agent', "There's a fault on our side right now. I've logged a ticket, and we'll email you as soon as it's fixed."],
    ['user', pick(random, ["That's annoying, but okay. Thanks.", 'Alright. I hope it gets fixed soon.'])],
  );
  return {
    lines,
    analysis: {
      summary: `${who.first} could not ${problem.replace('my bill', 'a bill')} because of a fault on the clinic's side; a ticket was logged and the caller will be emailed once it is fixed.`,
      topics: ['technical_support', topic],
      outcome: 'ticket_logged',
      sentiment: 'negative',
      successful: false,
    },
  };
}

function wrongNumber(random: Random): Written {
  const business = pick(random, OTHER_BUSINESSES);
  const lines: Line[] = [
    ['agent', greeting(random)],
    ['user', pick(random, [`Hi, is this ${business}?`, `Hello, I'm trying to reach ${business}.`])],
    ['agent', "I'm sorry, you've reached Harbor Dental. I think you may have the wrong number."],
    ['user', pick(random, ['Oh, sorry about that!', 'Oops, my mistake. Sorry.'])],
  ];
  if (chance(random, 0.5)) lines.push(['agent', 'No problem at all. Have a good day.']);
  return {
    lines,
    analysis: {
      summary: `The caller was trying to reach ${business} and had dialled the wrong number.`,
      topics: ['wrong_number'],
      outcome: 'wrong_number',
      sentiment: 'neutral',
      successful: false,
    },
  };
}

function voicemail(random: Random): Written {
  const who = person(random);
  const day = pick(random, WEEKDAYS);
  const [subject, message] = pick(random, [
    [`moving the appointment on ${day}`, `I'd like to move my appointment on ${day}`],
    ['a question about the last bill', 'I have a question about my last bill'],
    ['a tooth that has been hurting', 'I have a tooth that has been hurting since yesterday'],
  ] as const);
  return {
    lines: [
      ['agent', "You've reached Harbor Dental. We're closed right now. Please leave your name and a short message, and we'll call you back."],
      ['user', `Hi, this is ${who.full}. ${message}. Please call me back on this number. Thanks.`],
    ],
    analysis: {
      summary: `${who.first} left a voicemail asking for a call back about ${subject}.`,
      topics: ['voicemail', 'callback_request'],
      outcome: 'voicemail_left',
      sentiment: 'neutral',
      successful: true,
    },
  };
}

const WRITERS: Record<Exclude<ScenarioName, 'caller_hangup' | 'failed_call'>, (random: Random) => Written> = {
  billing_dispute: billingDispute,
  appointment_booking: appointmentBooking,
  cancellation,
  technical_support: technicalSupport,
  wrong_number: wrongNumber,
  voicemail,
};

/** Milliseconds one speaker takes to say `text` at `pace` (1 = an average speaker, about 175 words a minute). */
export function speakingTimeMs(text: string, pace: number): number {
  const words = text.split(/\s+/).filter((word) => word !== '').length;
  const pauses = (text.match(/[,.;:?!]/g) ?? []).length;
  return Math.round((words * 330 + pauses * 140 + 150) * pace);
}

/**
 * Lays the lines out in time: each speaker keeps a pace for the whole call; the agent answers after a
 * platform's response latency, the caller after a human pause.
 */
function timed(random: Random, lines: readonly Line[]): ScriptedTurn[] {
  const pace = { agent: between(random, 0.92, 1.08), user: between(random, 0.85, 1.2) };
  const turns: ScriptedTurn[] = [];
  let cursor = Math.round(between(random, 400, 1_200));
  for (const [role, text] of lines) {
    if (turns.length > 0) cursor += Math.round(role === 'agent' ? between(random, 600, 1_400) : between(random, 300, 1_600));
    const endMs = cursor + speakingTimeMs(text, pace[role]);
    turns.push({ role, text, startMs: cursor, endMs });
    cursor = endMs;
  }
  return turns;
}

function callerNumber(random: Random): string | null {
  if (chance(random, 0.08)) return null;
  return `+1${pick(random, ['415', '510', '650', '408', '628'])}555${String(Math.floor(random() * 10_000)).padStart(4, '0')}`;
}

/** One call of `scenario` (picked from SCENARIO_NAMES when absent). */
export function scenarioCall(random: Random, scenario: ScenarioName = pick(random, SCENARIO_NAMES)): ScenarioCall {
  const caller = callerNumber(random);
  if (scenario === 'failed_call') {
    return {
      scenario,
      end: 'failed',
      connected: false,
      turns: [],
      durationMs: 0,
      callerNumber: caller,
      analysis: { summary: 'The call failed before it connected.', topics: [], outcome: 'call_failed', sentiment: 'unknown', successful: false },
    };
  }
  if (scenario === 'caller_hangup') {
    return {
      scenario,
      end: 'caller-hangup',
      connected: true,
      turns: [],
      durationMs: Math.round(between(random, 1_200, 5_500)),
      callerNumber: caller,
      analysis: { summary: 'The caller hung up before the agent spoke.', topics: [], outcome: 'caller_hung_up', sentiment: 'unknown', successful: false },
    };
  }
  const written = WRITERS[scenario](random);
  const turns = timed(random, written.lines);
  const durationMs = turns[turns.length - 1].endMs + Math.round(between(random, 600, 2_000));
  return { scenario, end: 'completed', connected: true, turns, durationMs, callerNumber: caller, analysis: written.analysis };
}

/**
 * Scenarios in the proportions a clinic's line sees, for an agent that books (`front_desk`) or one that
 * handles invoices (`billing`): mostly its own business, a few wrong numbers, hang-ups and failures.
 */
export const SCENARIO_MIX: Record<'front_desk' | 'billing', ReadonlyArray<readonly [ScenarioName, number]>> = {
  front_desk: [
    ['appointment_booking', 0.34],
    ['cancellation', 0.2],
    ['technical_support', 0.1],
    ['voicemail', 0.1],
    ['wrong_number', 0.1],
    ['caller_hangup', 0.1],
    ['failed_call', 0.06],
  ],
  billing: [
    ['billing_dispute', 0.46],
    ['technical_support', 0.16],
    ['voicemail', 0.1],
    ['wrong_number', 0.1],
    ['caller_hangup', 0.1],
    ['failed_call', 0.08],
  ],
};

export function pickScenario(random: Random, mix: ReadonlyArray<readonly [ScenarioName, number]>): ScenarioName {
  let r = random() * mix.reduce((sum, [, weight]) => sum + weight, 0);
  for (const [name, weight] of mix) {
    if ((r -= weight) < 0) return name;
  }
  return mix[mix.length - 1][0];
}
