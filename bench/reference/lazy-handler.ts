import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import middy from '@middy/core';
import { importSPKI, jwtVerify } from 'jose';
import * as v from 'valibot';

/**
 * The P1 reference with its two clients built on first use, as this project builds them: shows how much of the
 * reference's import time is building the clients.
 */
let db: DynamoDBDocumentClient | undefined;
let sqs: SQSClient | undefined;
const clients = () => {
  db ??= DynamoDBDocumentClient.from(new DynamoDBClient({}));
  sqs ??= new SQSClient({});
  return { db, sqs };
};
const Body = v.object({ token: v.string(), id: v.string() });

export const handler = middy<{ body: string }>().handler(async (event) => {
  const { token, id } = v.parse(Body, JSON.parse(event.body));
  const { payload } = await jwtVerify(token, await importSPKI(process.env.PUBLIC_KEY ?? '', 'ES256'));
  const { Item } = await clients().db.send(new GetCommand({ TableName: 'table', Key: { PK: payload.sub, SK: id } }));
  await clients().sqs.send(
    new SendMessageCommand({ QueueUrl: process.env.QUEUE_URL, MessageBody: JSON.stringify(Item) }),
  );
  return { statusCode: 202 };
});
