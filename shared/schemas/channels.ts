import * as v from 'valibot';
import { CHANNEL_TYPES } from '#shared/domain/orgs/model';
import { NextCursor, Timestamp } from './common.ts';

export const ChannelView = v.object({
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
});

export const ChannelList = v.object({ channels: v.array(ChannelView), nextCursor: NextCursor });
