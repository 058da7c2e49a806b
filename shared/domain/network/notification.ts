import * as v from 'valibot';

/**
 * Meta's webhook envelope, parsed loosely: Meta adds fields over time and its own samples are not strict, so only
 * what we act on is required, and every group/message object keeps its unknown keys.
 */
const Errors = v.optional(
  v.array(
    v.looseObject({ code: v.optional(v.number()), message: v.optional(v.string()), title: v.optional(v.string()) }),
  ),
);

const Participant = v.looseObject({
  wa_id: v.optional(v.string()),
  user_id: v.optional(v.string()),
  input: v.optional(v.string()),
});

/** One setting in a `group_settings_update`: whether Meta applied it. */
const SettingResult = v.looseObject({
  text: v.optional(v.string()),
  update_successful: v.optional(v.boolean()),
  errors: Errors,
});

export const GroupEvent = v.looseObject({
  type: v.string(),
  timestamp: v.optional(v.union([v.string(), v.number()])),
  group_id: v.optional(v.string()),
  request_id: v.optional(v.string()),
  subject: v.optional(v.string()),
  invite_link: v.optional(v.string()),
  join_request_id: v.optional(v.string()),
  wa_id: v.optional(v.string()),
  user_id: v.optional(v.string()),
  added_participants: v.optional(v.array(Participant)),
  removed_participants: v.optional(v.array(Participant)),
  initiated_by: v.optional(v.string()),
  group_subject: v.optional(SettingResult),
  group_description: v.optional(SettingResult),
  errors: Errors,
});
export type GroupEvent = v.InferOutput<typeof GroupEvent>;

export const InboundMessage = v.looseObject({
  id: v.string(),
  from: v.optional(v.string()),
  timestamp: v.optional(v.union([v.string(), v.number()])),
  type: v.optional(v.string()),
  text: v.optional(v.looseObject({ body: v.optional(v.string()) })),
  group_id: v.optional(v.string()),
});
export type InboundMessage = v.InferOutput<typeof InboundMessage>;

export const StatusNotification = v.looseObject({
  id: v.string(),
  status: v.string(),
  timestamp: v.optional(v.union([v.string(), v.number()])),
  recipient_id: v.optional(v.string()),
  errors: Errors,
});
export type StatusNotification = v.InferOutput<typeof StatusNotification>;

export const Notification = v.looseObject({
  object: v.string(),
  entry: v.array(
    v.looseObject({
      id: v.optional(v.string()),
      changes: v.array(
        v.looseObject({
          field: v.string(),
          value: v.looseObject({
            metadata: v.optional(v.looseObject({ phone_number_id: v.optional(v.string()) })),
            groups: v.optional(v.array(GroupEvent)),
            messages: v.optional(v.array(InboundMessage)),
            statuses: v.optional(v.array(StatusNotification)),
          }),
        }),
      ),
    }),
  ),
});
export type Notification = v.InferOutput<typeof Notification>;

/** Meta's timestamps are Unix seconds (string or number). */
export function notificationTime(timestamp: string | number | undefined, fallback: Date): Date {
  const seconds = Number(timestamp);
  return Number.isFinite(seconds) && seconds > 0 ? new Date(seconds * 1000) : fallback;
}
