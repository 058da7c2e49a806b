import {
  BOOKING_STATUSES,
  BOOKING_TYPES,
  BOT_JOURNEY_STATUSES,
  CALL_DIRECTIONS,
  CALL_STATUSES,
  CHAT_TYPES,
  type CrmRecord,
  FLOW_SOURCES,
  FOLLOW_UP_KINDS,
  FOLLOW_UP_STATUSES,
  MESSAGE_SENDERS,
  SURVEY_SOURCES,
  SURVEY_STATUSES,
  TICKET_PRIORITIES,
} from '#shared/domain/reports/records';

/** mulberry32: a small, fast, seedable PRNG, so a seed always gives the same data set. */
function prng(seed: number) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const FIRST = [
  'Anna',
  'Ben',
  'Chloé',
  'Deniz',
  'Elif',
  'Farid',
  'Greta',
  'Hiro',
  'Ines',
  'Jonas',
  'Kemal',
  'Lena',
  'Mateo',
  'Noor',
  'Olga',
  'Paul',
];
const LAST = [
  'Müller',
  'Schmidt',
  'Yılmaz',
  'García',
  'Rossi',
  'Nowak',
  'Dubois',
  'Kowalski',
  'Silva',
  "O'Brien",
  'Tanaka',
  'Weber',
];
const TOPICS = [
  'Order',
  'Delivery',
  'Refund',
  'Invoice',
  'Booking',
  'Support',
  'Onboarding',
  'Complaint',
  'Upgrade',
  'Return',
];
const HANGUPS = ['NORMAL_CLEARING', 'USER_BUSY', 'NO_ANSWER', 'CALL_REJECTED', 'NETWORK_OUT_OF_ORDER'];
const ISSUES = ['billing', 'login', 'shipping', 'damaged item', 'wrong size', 'late delivery'];
const BASE = Date.parse('2026-01-01T00:00:00.000Z');
const SPAN_MS = 300 * 24 * 3600 * 1000;

/**
 * Realistic, deterministic CRM data for `wpcrm data generate` and the benchmarks: `scale` chats and contacts plus
 * proportional tickets, calls, goals, bookings, follow-ups and responses, linked to each other, with every enum value
 * used (the first records cycle through them) and spreadsheet-hostile text sprinkled in. Yields records one by one.
 */
export function* generateRecords(input: { scale: number; seed?: number }): Generator<CrmRecord> {
  const draw = drawing(input.seed ?? 1);
  const scale = Math.max(1, Math.floor(input.scale));
  const share = (part: number) => Math.max(1, Math.floor(scale * part));
  // Kind by kind, in this order: every draw comes from the one sequence, so the order is part of the data set.
  const kinds: [number, (draw: Draw, index: number, scale: number) => CrmRecord][] = [
    [scale, contact],
    [scale, chat],
    [share(0.5), ticket],
    [share(0.5), callLog],
    [share(0.25), goal],
    [share(0.25), booking],
    [share(0.25), followUp],
    [share(0.25), surveyResponse],
    [share(0.25), flowResponse],
  ];
  for (const [count, record] of kinds) {
    for (let index = 0; index < count; index++) yield record(draw, index, scale);
  }
}

/** The seeded draws the records are made of. */
function drawing(seed: number) {
  const random = prng(seed);
  const pick = <T>(values: readonly T[], index?: number): T => values[index ?? Math.floor(random() * values.length)]!;
  const cycle = <T>(values: readonly T[], index: number): T =>
    index < values.length * 3 ? pick(values, index % values.length) : pick(values);
  const chance = (p: number) => random() < p;
  const time = () => new Date(BASE + Math.floor(random() * SPAN_MS)).toISOString();
  const phone = () => `+49151${String(Math.floor(random() * 1e8)).padStart(8, '0')}`;
  const person = () => `${pick(FIRST)} ${pick(LAST)}`;
  const ids = (prefix: string, count: number, max: number) => [
    ...new Set(Array.from({ length: count }, () => `${prefix}${Math.floor(random() * max) + 1}`)),
  ];
  return { random, pick, cycle, chance, time, phone, person, ids };
}

type Draw = ReturnType<typeof drawing>;

const contactId = (index: number) => `contact-${index + 1}`;
const chatId = (index: number) => `chat-${index + 1}`;

function contact(draw: Draw, index: number): CrmRecord {
  const { random, pick, chance, time, phone, person, ids } = draw;
  const createdAt = time();
  return {
    recordType: 'CONTACT',
    contactId: contactId(index),
    name: index % 97 === 0 ? `=HYPERLINK("x") ${person()}` : person(),
    ...(chance(0.9) ? { phone: phone() } : {}),
    ...(chance(0.6) ? { email: `user${index + 1}@example.com` } : {}),
    channelIds: ids('ch-', 1 + Math.floor(random() * 2), 4),
    ...(chance(0.7) ? { createdByUserId: `user-${1 + Math.floor(random() * 10)}` } : {}),
    customFields: { tier: pick(['gold', 'silver', 'bronze']), score: Math.floor(random() * 100), vip: chance(0.1) },
    createdAt,
  };
}

function chat(draw: Draw, index: number, scale: number): CrmRecord {
  const { random, pick, cycle, chance, time, phone, person, ids } = draw;
  const createdAt = time();
  const updatedAt = new Date(Math.max(Date.parse(createdAt), BASE + Math.floor(random() * SPAN_MS))).toISOString();
  const assigned = chance(0.6) ? ids('user-', 1 + Math.floor(random() * 2), 10) : [];
  return {
    recordType: 'CHAT',
    chatId: chatId(index),
    name: `${pick(TOPICS)} – ${person()}${index % 89 === 0 ? ', "urgent"' : ''}`,
    chatType: cycle(CHAT_TYPES, index),
    channelId: `ch-${1 + Math.floor(random() * 4)}`,
    ...(chance(0.8) ? { externalChatId: phone().slice(1) } : {}),
    isArchived: chance(0.1),
    isResolved: chance(0.4),
    isHighPriority: chance(0.15),
    autopilot: chance(0.3),
    ...(chance(0.7) || index < 12 ? { botJourneyStatus: cycle(BOT_JOURNEY_STATUSES, index) } : {}),
    ...(chance(0.9) || index < 9 ? { lastMessageFrom: cycle(MESSAGE_SENDERS, index) } : {}),
    assignedUserIds: assigned,
    assignedTeamIds: chance(0.4) ? ids('team-', 1, 4) : [],
    ...(assigned.length && chance(0.7) ? { primaryAssigneeUserId: assigned[0] } : {}),
    contactIds: chance(0.9) ? [contactId(Math.floor(random() * scale))] : [],
    stateMachineIds: chance(0.3) ? ['sm-1'] : [],
    currentStateIds: chance(0.3) ? [`state-${1 + Math.floor(random() * 5)}`] : [],
    labelIds: chance(0.5) ? ids('label-', 1 + Math.floor(random() * 3), 8) : [],
    externalItems: chance(0.2) ? [`order-${Math.floor(random() * 1e6)}`] : [],
    createdAt,
    updatedAt,
  };
}

function ticket(draw: Draw, index: number, scale: number): CrmRecord {
  const { random, pick, cycle, chance, time, ids } = draw;
  return {
    recordType: 'TICKET',
    ticketId: `ticket-${index + 1}`,
    number: index + 1,
    isResolved: chance(0.5),
    priority: cycle(TICKET_PRIORITIES, index),
    assignedUserIds: chance(0.7) ? ids('user-', 1, 10) : [],
    ...(chance(0.8) ? { createdByUserId: `user-${1 + Math.floor(random() * 10)}` } : {}),
    ...(chance(0.5) ? { ticketMachineId: `tm-${1 + Math.floor(random() * 3)}` } : {}),
    ...(chance(0.8) ? { chatId: chatId(Math.floor(random() * scale)) } : {}),
    ...(chance(0.6) ? { remarks: `Customer reports ${pick(ISSUES)}` } : {}),
    issueNames: chance(0.7) ? [pick(ISSUES)] : [],
    createdAt: time(),
  };
}

function callLog(draw: Draw, index: number, scale: number): CrmRecord {
  const { random, pick, cycle, chance, time, phone } = draw;
  const completed = chance(0.6);
  return {
    recordType: 'CALL_LOG',
    callId: `call-${index + 1}`,
    direction: cycle(CALL_DIRECTIONS, index),
    status: cycle(CALL_STATUSES, index),
    ...(chance(0.8) ? { agentUserId: `user-${1 + Math.floor(random() * 10)}` } : {}),
    ...(chance(0.5) ? { callingAccountId: `acct-${1 + Math.floor(random() * 3)}` } : {}),
    callerNumber: phone(),
    calledNumber: phone(),
    ...(chance(0.6) ? { chatId: chatId(Math.floor(random() * scale)) } : {}),
    ...(completed && chance(0.5) ? { recordingUrl: `https://recordings.example.com/${index + 1}.mp3` } : {}),
    talkDurationSeconds: completed ? Math.floor(random() * 1200) : 0,
    ...(chance(0.8) ? { hangupCause: pick(HANGUPS) } : {}),
    initiatedAt: time(),
  };
}

function goal(draw: Draw, index: number, scale: number): CrmRecord {
  const { random, pick, chance, time } = draw;
  return {
    recordType: 'GOAL',
    goalEventId: `goal-event-${index + 1}`,
    goalId: `goal-${1 + Math.floor(random() * 5)}`,
    ...(chance(0.8) ? { channelId: `ch-${1 + Math.floor(random() * 4)}` } : {}),
    ...(chance(0.7) ? { chatId: chatId(Math.floor(random() * scale)) } : {}),
    trackerValues: {
      revenue: Math.round(random() * 50000) / 100,
      currency: 'EUR',
      source: pick(['ad', 'organic', 'referral']),
    },
    recordedAt: time(),
  };
}

function booking(draw: Draw, index: number, scale: number): CrmRecord {
  const { random, cycle, chance, time } = draw;
  const startsAt = time();
  return {
    recordType: 'BOOKING',
    bookingId: `booking-${index + 1}`,
    type: cycle(BOOKING_TYPES, index),
    status: cycle(BOOKING_STATUSES, index),
    ...(chance(0.8) ? { agentUserId: `user-${1 + Math.floor(random() * 10)}` } : {}),
    ...(chance(0.8) ? { contactId: contactId(Math.floor(random() * scale)) } : {}),
    startsAt,
    endsAt: new Date(Date.parse(startsAt) + (1 + Math.floor(random() * 4)) * 30 * 60_000).toISOString(),
  };
}

function followUp(draw: Draw, index: number, scale: number): CrmRecord {
  const { random, pick, cycle, chance, time } = draw;
  return {
    recordType: 'FOLLOW_UPS',
    followUpId: `follow-up-${index + 1}`,
    kind: cycle(FOLLOW_UP_KINDS, index),
    status: cycle(FOLLOW_UP_STATUSES, index),
    ...(chance(0.8) ? { agentUserId: `user-${1 + Math.floor(random() * 10)}` } : {}),
    ...(chance(0.7) ? { chatId: chatId(Math.floor(random() * scale)) } : {}),
    ...(chance(0.5) ? { note: `Call back about ${pick(ISSUES)}` } : {}),
    dueAt: time(),
  };
}

function surveyResponse(draw: Draw, index: number): CrmRecord {
  const { random, pick, cycle, chance, time } = draw;
  const status = cycle(SURVEY_STATUSES, index);
  const startedAt = time();
  return {
    recordType: 'SURVEY_RESPONSES',
    responseId: `survey-response-${index + 1}`,
    surveyFormId: `form-${1 + Math.floor(random() * 3)}`,
    status,
    source: cycle(SURVEY_SOURCES, index),
    ...(chance(0.7) ? { channel: pick(['whatsapp', 'email', 'web']) } : {}),
    answers: { nps: Math.floor(random() * 11), comment: chance(0.3) ? '-great service' : 'ok' },
    startedAt,
    ...(status === 'COMPLETED' ? { completedAt: new Date(Date.parse(startedAt) + 120_000).toISOString() } : {}),
  };
}

function flowResponse(draw: Draw, index: number, scale: number): CrmRecord {
  const { random, pick, cycle, chance, time } = draw;
  return {
    recordType: 'FLOW_RESPONSES',
    responseId: `flow-response-${index + 1}`,
    flowId: `flow-${1 + Math.floor(random() * 4)}`,
    source: cycle(FLOW_SOURCES, index),
    ...(chance(0.7) ? { chatId: chatId(Math.floor(random() * scale)) } : {}),
    response: { choice: pick(['yes', 'no', 'maybe']), rating: Math.floor(random() * 5) + 1 },
    respondedAt: time(),
  };
}
