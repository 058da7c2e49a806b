import * as v from 'valibot';

/** Each top-level schema is built through this, so a bundle keeps only the schemas it uses (see common.ts). */
/* @__NO_SIDE_EFFECTS__ */ const schema = <T>(build: () => T): T => build();

/**
 * One item of Meta's webhook notifications (CONTRACT §16), as shared/domain/network/notification.ts hands it over:
 * every id already text, every time and code a number, `null` absent, a missing `timestamp` filled in. Only what the
 * service uses is declared, every field optional unless nothing can be done without it, and every object loose: a
 * field Meta adds or the service does not use is never a reason to skip an item.
 */
const Id = schema(() => v.optional(v.string()));
const Text = schema(() => v.optional(v.string()));
const Time = schema(() => v.optional(v.number()));

const Errors = schema(() =>
  v.optional(v.array(v.looseObject({ code: v.optional(v.number()), message: Text, title: Text }))),
);
export type NetworkErrors = NonNullable<v.InferOutput<typeof Errors>>;

/** A participant: by phone number (`wa_id`), business-scoped user id, or what the business asked with (`input`). */
const Participant = schema(() => v.looseObject({ wa_id: Id, user_id: Id, input: Id }));
export type NetworkParticipant = v.InferOutput<typeof Participant>;

const FailedParticipant = schema(() => v.looseObject({ wa_id: Id, user_id: Id, input: Id, errors: Errors }));

/** One setting in a `group_settings_update`: whether Meta applied it. */
const SettingResult = schema(() =>
  v.looseObject({ text: Text, mode: Text, update_successful: v.optional(v.boolean()), errors: Errors }),
);

export const GroupEvent = schema(() =>
  v.looseObject({
    type: v.string(),
    timestamp: Time,
    group_id: Id,
    request_id: Id,
    invite_link: Text,
    /** `approval_required` / `auto_approve`: written as a string (creation), or as a setting's result. */
    join_approval_mode: v.optional(v.union([v.string(), SettingResult])),
    join_request_id: Id,
    wa_id: Id,
    user_id: Id,
    input: Id,
    added_participants: v.optional(v.array(Participant)),
    removed_participants: v.optional(v.array(Participant)),
    failed_participants: v.optional(v.array(FailedParticipant)),
    initiated_by: Text,
    group_subject: v.optional(SettingResult),
    group_description: v.optional(SettingResult),
    errors: Errors,
  }),
);
export type GroupEvent = v.InferOutput<typeof GroupEvent>;

export const InboundMessage = schema(() =>
  v.looseObject({
    id: v.string(),
    from: Id,
    from_user_id: Id,
    timestamp: Time,
    type: Text,
    text: v.optional(v.looseObject({ body: Text })),
    group_id: Id,
    errors: Errors,
  }),
);
export type InboundMessage = v.InferOutput<typeof InboundMessage>;

export const StatusNotification = schema(() =>
  v.looseObject({
    id: v.string(),
    status: v.string(),
    timestamp: Time,
    recipient_id: Id,
    recipient_type: Text,
    recipient_user_id: Id,
    group_id: Id,
    recipient_participant_id: Id,
    participant_recipient_id: Id,
    recipient_participant_user_id: Id,
    errors: Errors,
  }),
);
export type StatusNotification = v.InferOutput<typeof StatusNotification>;
