import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import middy from '@middy/core';
import { importSPKI, jwtVerify } from 'jose';
import * as v from 'valibot';

/**
 * P1 reference (TOOLCHAIN §5 handler b): middy, jose verification, valibot, the DynamoDB document client and the SQS
 * client, with the clients built at top level, as a best-practice small function would.
 */
const db = DynamoDBDocumentClient.from(new DynamoDBClient({}));
const sqs = new SQSClient({});
const Body = v.object({ token: v.string(), id: v.string() });

export const handler = middy<{ body: string }>().handler(async (event) => {
  const { token, id } = v.parse(Body, JSON.parse(event.body));
  const { payload } = await jwtVerify(token, await importSPKI(process.env.PUBLIC_KEY ?? '', 'ES256'));
  const { Item } = await db.send(new GetCommand({ TableName: 'table', Key: { PK: payload.sub, SK: id } }));
  await sqs.send(new SendMessageCommand({ QueueUrl: process.env.QUEUE_URL, MessageBody: JSON.stringify(Item) }));
  return { statusCode: 202 };
});
