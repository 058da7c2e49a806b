import { Health, Jwks, OpenApiDocument, TokenResponse } from './auth.ts';
import { ChannelList } from './channels.ts';
import { ConsoleLink, ConsoleOverview, ConsoleSessionToken, ConsoleSignedOut } from './console.ts';
import { EventFeedPage } from './feed.ts';
import {
  AssignmentView,
  ChatView,
  GroupAccepted,
  GroupChangeAccepted,
  GroupList,
  GroupRequestView,
  GroupView,
  Invitations,
  InviteLink,
  JoinRequestList,
  JoinRequestOutcome,
  MessageList,
  MessageQueued,
  NetworkReceived,
  ParticipantList,
  ReceiptList,
  RemovalAccepted,
} from './groups.ts';
import { ReportScheduleList, ReportScheduleView } from './report-schedules.ts';
import { ReportDownload, ReportList, ReportView } from './reports.ts';
import {
  AttemptList,
  DeliveryList,
  Redelivered,
  RotatedSecret,
  TestDeliveryQueued,
  WebhookCreated,
  WebhookList,
  WebhookView,
} from './webhooks.ts';

/**
 * The schemas of the API's answers, by name. A route names the schema of each answer (RouteDef `responses`) and the
 * OpenAPI document resolves the name here: no function sends its answers through these schemas, so a route that held
 * the schema itself made its function's bundle build it at every cold start for nothing (the report routes' views
 * hold every report type's filters: 14 KB of get-report's bundle; bench/RESULTS.md, P1). Nothing a function bundles
 * imports this module.
 */
export const RESPONSE_SCHEMAS = {
  AssignmentView,
  AttemptList,
  ChannelList,
  ChatView,
  ConsoleLink,
  ConsoleOverview,
  ConsoleSessionToken,
  ConsoleSignedOut,
  DeliveryList,
  EventFeedPage,
  GroupAccepted,
  GroupChangeAccepted,
  GroupList,
  GroupRequestView,
  GroupView,
  Health,
  Invitations,
  InviteLink,
  JoinRequestList,
  JoinRequestOutcome,
  Jwks,
  MessageList,
  MessageQueued,
  NetworkReceived,
  OpenApiDocument,
  ParticipantList,
  ReceiptList,
  Redelivered,
  RemovalAccepted,
  ReportDownload,
  ReportList,
  ReportScheduleList,
  ReportScheduleView,
  ReportView,
  RotatedSecret,
  TestDeliveryQueued,
  TokenResponse,
  WebhookCreated,
  WebhookList,
  WebhookView,
};

export type ResponseSchemaName = keyof typeof RESPONSE_SCHEMAS;
