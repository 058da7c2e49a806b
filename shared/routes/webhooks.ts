import { ADMINS } from '#shared/domain/auth/roles';
import { ListQuery } from '#shared/schemas/common';
import {
  CreateWebhookBody,
  DeliveryParams,
  TestDeliveryBody,
  UpdateWebhookBody,
  WebhookParams,
} from '#shared/schemas/webhooks';
import { defineRoute } from './route.ts';

// Named rather than spread: esbuild takes a spread for a side effect (route.ts, defineRoute).
const WEBHOOK_NOT_FOUND = { description: 'WEBHOOK_NOT_FOUND' };

export const createWebhook = /* @__PURE__ */ defineRoute({
  operationId: 'createWebhook',
  method: 'POST',
  path: '/webhooks/{orgId}',
  fn: 'create-webhook',
  summary: 'Subscribe a URL to events (Standard Webhooks); the secret is shown only here',
  tag: 'webhooks',
  auth: ADMINS,
  orgParam: 'orgId',
  body: CreateWebhookBody,
  responses: {
    201: {
      description: 'The subscription and its secret (Location: the subscription)',
      schema: 'WebhookCreated',
      headers: ['Location', 'Cache-Control'],
    },
    422: {
      description:
        'WEBHOOK_URL_NOT_ALLOWED (not https, or a private, loopback or metadata address); WEBHOOK_LIMIT_REACHED ' +
        '(the organisation has WEBHOOK_SUBSCRIPTION_LIMIT subscriptions, 20 by default)',
    },
  },
});

export const listWebhooks = /* @__PURE__ */ defineRoute({
  operationId: 'listWebhooks',
  method: 'GET',
  path: '/webhooks/{orgId}',
  fn: 'list-webhooks',
  summary: 'List subscriptions (never their secrets)',
  tag: 'webhooks',
  auth: ADMINS,
  orgParam: 'orgId',
  query: ListQuery,
  responses: { 200: { description: 'Subscriptions', schema: 'WebhookList' } },
});

export const updateWebhook = /* @__PURE__ */ defineRoute({
  operationId: 'updateWebhook',
  method: 'PATCH',
  path: '/webhooks/{orgId}/{webhookId}',
  fn: 'update-webhook',
  summary: 'Change a subscription; status "active" re-enables it',
  tag: 'webhooks',
  auth: ADMINS,
  orgParam: 'orgId',
  params: WebhookParams,
  body: UpdateWebhookBody,
  responses: {
    200: { description: 'The subscription', schema: 'WebhookView' },
    404: WEBHOOK_NOT_FOUND,
    422: { description: 'WEBHOOK_URL_NOT_ALLOWED' },
  },
});

export const deleteWebhook = /* @__PURE__ */ defineRoute({
  operationId: 'deleteWebhook',
  method: 'DELETE',
  path: '/webhooks/{orgId}/{webhookId}',
  fn: 'delete-webhook',
  summary: 'Delete a subscription; its pending deliveries stop',
  tag: 'webhooks',
  auth: ADMINS,
  orgParam: 'orgId',
  params: WebhookParams,
  responses: { 204: { description: 'Deleted' }, 404: WEBHOOK_NOT_FOUND },
});

export const rotateWebhookSecret = /* @__PURE__ */ defineRoute({
  operationId: 'rotateWebhookSecret',
  method: 'POST',
  path: '/webhooks/{orgId}/{webhookId}/rotate-secret',
  fn: 'rotate-webhook-secret',
  summary: 'A new secret; the old one keeps signing beside it for 24 h',
  tag: 'webhooks',
  auth: ADMINS,
  orgParam: 'orgId',
  params: WebhookParams,
  responses: {
    200: { description: 'The new secret', schema: 'RotatedSecret', headers: ['Cache-Control'] },
    404: WEBHOOK_NOT_FOUND,
  },
});

export const listDeliveries = /* @__PURE__ */ defineRoute({
  operationId: 'listDeliveries',
  method: 'GET',
  path: '/webhooks/{orgId}/{webhookId}/deliveries',
  fn: 'list-deliveries',
  summary: "A subscription's deliveries, newest first",
  tag: 'webhooks',
  auth: ADMINS,
  orgParam: 'orgId',
  params: WebhookParams,
  query: ListQuery,
  responses: { 200: { description: 'Deliveries', schema: 'DeliveryList' }, 404: WEBHOOK_NOT_FOUND },
});

export const redeliver = /* @__PURE__ */ defineRoute({
  operationId: 'redeliver',
  method: 'POST',
  path: '/webhooks/{orgId}/{webhookId}/deliveries/{deliveryId}/redeliver',
  fn: 'redeliver-webhook',
  summary: 'Deliver again (same delivery, same webhook-id)',
  tag: 'webhooks',
  auth: ADMINS,
  orgParam: 'orgId',
  params: DeliveryParams,
  responses: {
    202: { description: 'Queued', schema: 'Redelivered' },
    404: { description: 'WEBHOOK_NOT_FOUND or DELIVERY_NOT_FOUND' },
    409: { description: 'DELIVERY_IN_PROGRESS' },
    429: {
      description: 'RATE_LIMITED (Retry-After): WEBHOOK_REDELIVER_RATE_LIMIT per organisation, 60/3600 by default',
    },
  },
});

export const sendWebhookTest = /* @__PURE__ */ defineRoute({
  operationId: 'sendWebhookTest',
  method: 'POST',
  path: '/webhooks/{orgId}/{webhookId}/test',
  fn: 'send-webhook-test',
  summary: 'Send a test delivery: the documented example of a type, with this organisation\'s id and "test": true',
  tag: 'webhooks',
  auth: ADMINS,
  orgParam: 'orgId',
  params: WebhookParams,
  body: TestDeliveryBody,
  responses: {
    202: {
      description: 'Queued: a delivery like any other, listed among the deliveries',
      schema: 'TestDeliveryQueued',
    },
    404: WEBHOOK_NOT_FOUND,
    429: {
      description: 'RATE_LIMITED (Retry-After): WEBHOOK_REDELIVER_RATE_LIMIT per organisation, 60/3600 by default',
    },
  },
});

export const listDeliveryAttempts = /* @__PURE__ */ defineRoute({
  operationId: 'listDeliveryAttempts',
  method: 'GET',
  path: '/webhooks/{orgId}/{webhookId}/deliveries/{deliveryId}/attempts',
  fn: 'list-delivery-attempts',
  summary: "A delivery's attempts, oldest first: status code, duration, error and the start of the answer",
  tag: 'webhooks',
  auth: ADMINS,
  orgParam: 'orgId',
  params: DeliveryParams,
  responses: {
    200: { description: 'Attempts', schema: 'AttemptList' },
    404: { description: 'WEBHOOK_NOT_FOUND or DELIVERY_NOT_FOUND' },
  },
});
