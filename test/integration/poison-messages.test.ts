import { describe, expect, it } from 'vitest';
import { QUEUES } from '#infra/aws/functions';
import { eventually, useLocalStack } from '#test/support/local-stack';

describe('queue consumers and poison messages', () => {
  const api = useLocalStack();

  it.each(QUEUES.map((queue) => [queue.name]))(
    'moves malformed %s messages to the dead-letter queue within seconds',
    async (name) => {
      const queue = api.stack.queues.get(name)!;
      const deadLetters = api.stack.queues.get(`${name}-dlq`)!;

      queue.send('{"not":"a job of this queue"}');
      queue.send('this is not JSON');

      await eventually(
        () => expect(deadLetters.peek().sort()).toEqual(['this is not JSON', '{"not":"a job of this queue"}'].sort()),
        {
          timeoutMs: 15_000,
        },
      );
      expect(queue.size).toBe(0);
    },
  );
});
