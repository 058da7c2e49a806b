import * as v from 'valibot';
import type { EventType } from '#shared/events/catalog';
import { lazily } from '#shared/lazily';
import { Timestamp } from './common.ts';

/** Each top-level schema is built through this, so a bundle keeps only the schemas it uses (see common.ts). */
/* @__NO_SIDE_EFFECTS__ */ const schema = <T>(build: () => T): T => build();

const ErrorBody = schema(() => v.object({ code: v.string(), message: v.string() }));

/** Present (true) only on a test delivery (CONTRACT §20): the type's example body, not an event that happened. */
const TestFlag = schema(() =>
  v.optional(
    v.pipe(
      v.boolean(),
      v.description(
        'true only on a test delivery (POST …/webhooks/{orgId}/{webhookId}/test): an example body, not an event that happened; absent otherwise',
      ),
    ),
  ),
);

const envelope = <T extends EventType>(type: T) => ({
  type: v.literal(type),
  timestamp: v.pipe(Timestamp, v.description('When it happened')),
  organisation_id: v.string(),
  test: TestFlag,
});

/** A group member: by phone number, by business-scoped user id, or both. */
const Member = schema(() =>
  v.object({
    phone_number: v.pipe(v.nullable(v.string()), v.description('E.164')),
    user_id: v.nullable(v.string()),
  }),
);

/** The report schedule that requested the report (CONTRACT §23); null for a report requested by hand. */
const ScheduleId = schema(() =>
  v.pipe(
    v.nullable(v.string()),
    v.description('The report schedule that requested it (rsc_…); null when requested by hand'),
  ),
);

const GroupStatus = schema(() => v.picklist(['active', 'suspended', 'deleted']));

/**
 * The webhook body of every event (CONTRACT §7 and §12): the publisher validates each event against its schema
 * before it leaves the service, and openapi.json describes the same schemas under `webhooks`. Each built when first
 * read: a function publishes a few of the types.
 */
export const EVENT_BODIES = schema(() =>
  lazily({
    'group.created': () =>
      v.object({
        ...envelope('group.created'),
        request_id: v.string(),
        chat_id: v.string(),
        channel_id: v.string(),
        subject: v.string(),
        invite_link: v.string(),
      }),
    'group.creation_failed': () =>
      v.object({
        ...envelope('group.creation_failed'),
        request_id: v.string(),
        channel_id: v.string(),
        error: ErrorBody,
      }),
    'report.completed': () =>
      v.object({
        ...envelope('report.completed'),
        report_id: v.string(),
        report_type: v.string(),
        schedule_id: ScheduleId,
        row_count: v.pipe(v.number(), v.integer(), v.minValue(0)),
        truncatedCells: v.pipe(
          v.number(),
          v.integer(),
          v.minValue(0),
          v.description(
            'Cells cut to fit: an XLSX text over 32,767 characters is cut and ends with "…[truncated]"; 0 for CSV and JSONL. Named as CONTRACT §23 names it, in camelCase like the report record (the other body fields are snake_case)',
          ),
        ),
      }),
    'report.failed': () =>
      v.object({
        ...envelope('report.failed'),
        report_id: v.string(),
        report_type: v.string(),
        schedule_id: ScheduleId,
        error: ErrorBody,
      }),
    'message.received': () =>
      v.object({
        ...envelope('message.received'),
        chat_id: v.string(),
        message_id: v.string(),
        external_message_id: v.pipe(v.string(), v.description("Meta's wamid")),
        from: v.pipe(v.string(), v.description('E.164')),
        message_type: v.pipe(v.string(), v.description("Meta's message type: text, image, …")),
        text: v.pipe(v.nullable(v.string()), v.description('null unless the message is text')),
        error: v.pipe(
          v.nullable(ErrorBody),
          v.description(
            'The network\'s error for a message it could not read (message_type "unsupported", e.g. 130501); null otherwise',
          ),
        ),
      }),
    'message.status': () =>
      v.object({
        ...envelope('message.status'),
        chat_id: v.string(),
        message_id: v.string(),
        status: v.picklist(['sent', 'delivered', 'read', 'failed']),
        error: v.nullable(ErrorBody),
        participant: v.pipe(
          v.nullable(Member),
          v.description('The group member whose receipt moved the status; null when no member is named'),
        ),
      }),
    'group.participants_changed': () =>
      v.object({
        ...envelope('group.participants_changed'),
        chat_id: v.string(),
        change: v.picklist(['joined', 'left', 'removed', 'join_requested', 'join_request_revoked']),
        phone_numbers: v.array(v.pipe(v.string(), v.description('E.164'))),
        user_ids: v.pipe(
          v.array(v.string()),
          v.description(
            'Business-scoped user ids of the members (those known by a WhatsApp username may have no phone number)',
          ),
        ),
        join_request_id: v.nullable(v.string()),
        errors: v.pipe(
          v.array(
            v.object({
              phone_number: v.nullable(v.string()),
              user_id: v.nullable(v.string()),
              code: v.string(),
              message: v.string(),
            }),
          ),
          v.description(
            'A removal that partly failed: one entry per participant the network did not remove; else empty',
          ),
        ),
      }),
    'group.updated': () =>
      v.object({
        ...envelope('group.updated'),
        chat_id: v.string(),
        subject: v.string(),
        description: v.nullable(v.string()),
        group_status: GroupStatus,
        errors: v.pipe(
          v.array(v.object({ field: v.picklist(['subject', 'description']), code: v.string(), message: v.string() })),
          v.description('One entry per setting the network did not apply; empty when all applied'),
        ),
      }),
    'group.deleted': () => v.object({ ...envelope('group.deleted'), chat_id: v.string() }),
  } satisfies Record<EventType, () => v.GenericSchema>),
);

/** What happened, for the OpenAPI `webhooks` entries. */
export const EVENT_SUMMARIES: Record<EventType, string> = {
  'group.created': 'Meta confirmed a requested group; polling already shows it created',
  'group.creation_failed': 'A group request failed',
  'report.completed': 'A report file is ready to download',
  'report.failed': 'A report failed',
  'message.received': 'An inbound message in a chat of the organisation',
  'message.status': 'An outbound message changed status',
  'group.participants_changed': 'Members joined, left, were removed, or asked to join',
  'group.updated': "A group's settings change was applied, or its suspension set or cleared",
  'group.deleted': 'Meta confirmed that a group was deleted',
};
