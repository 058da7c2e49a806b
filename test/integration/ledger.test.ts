import { mkdtempSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runLedger } from '#test/support/ledger';
import { useLocalStack } from '#test/support/local-stack';

/** The CI run's size; `npm run ledger` runs longer with more organisations. */
const DURATION_MS = Number(process.env.LEDGER_DURATION_MS ?? 15_000);
const SEED = Number(process.env.LEDGER_SEED ?? 4242);

describe('a ledger run under faults (K-4)', () => {
  // A data dir, not memory: the nemesis restarts DynamoDB over the same data.
  const api = useLocalStack({
    WPCRM_DATA_DIR: mkdtempSync(join(tmpdir(), 'wpcrm-ledger-')),
    GROUP_CREATE_RATE_LIMIT: '100000/60',
    ORG_REQUEST_RATE_LIMIT: '100000000/60',
    NETWORK_CALL_RATE_LIMIT: '100000000/60',
    GROUP_RECONCILE_SETTLE_SECONDS: '1',
    NETWORK_RETRY_BASE_SECONDS: '1',
    REPORT_WINDOW_SECONDS: '1',
    WEBHOOK_RETRY_SCHEDULE_SECONDS: '1,1,2,2,3,3,5,5,5,5',
  });

  it(
    'loses nothing: every acknowledged request ends final, at most one group each, every event delivered (K-4)',
    async () => {
      const result = await runLedger(api, {
        seed: SEED,
        durationMs: DURATION_MS,
        organisations: Number(process.env.LEDGER_ORGANISATIONS ?? 3),
        duplicateDeliveries: 0.2,
      });
      await mkdir('test-results', { recursive: true });
      await writeFile(
        join('test-results', process.env.LEDGER_RESULT_FILE ?? 'ledger.json'),
        `${JSON.stringify(result, null, 2)}\n`,
      );

      expect(result.notFinal, JSON.stringify(result.notFinalTrace)).toEqual([]);
      expect(result.lost, JSON.stringify(result.lostTrace)).toEqual([]);
      expect(result.groupsPerRequestMax).toBeLessThanOrEqual(1);
      expect(result.unexpectedGroups).toEqual([]);
      expect(result.liveGroupsOfFailedRequests).toEqual([]);
      expect(result.eventsMissing, JSON.stringify(result.missingEventTrace)).toEqual([]);
      expect(result.acknowledged.groups).toBeGreaterThan(0);
      expect(result.faults['dynamodb restarts']).toBe(1);
      // A receiver that hung (its attempts timed out, its subscription's attempts moved to the slow receivers' pool)
      // still got every event once it answered again (issue 35).
      expect(result.faults['webhook receiver hangs']).toBe(1);
      expect(
        Object.entries(result.deadLetters).filter(([, count]) => count > 0),
        JSON.stringify(result.deadLetterBodies),
      ).toEqual([]);
    },
    DURATION_MS + 480_000,
  );
});
