import * as v from 'valibot';
import { CHANNEL_TYPES } from '#shared/domain/orgs/model';
import { NextCursor, Timestamp } from './common.ts';

/** Each top-level schema is built through this, so a bundle keeps only the schemas it uses (see common.ts). */
/* @__NO_SIDE_EFFECTS__ */ const schema = <T>(build: () => T): T => build();

export const ChannelView = schema(() =>
  v.object({
    channelId: v.string(),
    name: v.string(),
    type: v.picklist(CHANNEL_TYPES),
    phoneNumber: v.string(),
    officialBusinessAccount: v.boolean(),
    groupsEligible: v.boolean(),
    createdAt: Timestamp,
    inviteTemplate: v.pipe(
      v.object({ name: v.string(), language: v.string() }),
      v.description(
        "The business's copy of Meta's group invite-link template that invitations send (default group_invite_link / en_US)",
      ),
    ),
  }),
);

export const ChannelList = schema(() => v.object({ channels: v.array(ChannelView), nextCursor: NextCursor }));
