import { signedMetaRequest } from './whatsapp.ts';

/**
 * What tests and benchmarks hand a stack they start themselves (no vitest here, so the benchmarks can import it):
 * its environment and Meta's signed inbound notifications.
 */

/** Every port picked free, nothing kept on disk. */
export const EPHEMERAL_STACK_ENV = {
  WPCRM_DATA_DIR: ':memory:',
  PORT: '0',
  WPCRM_DYNAMODB_PORT: '0',
  WPCRM_S3_PORT: '0',
  WPCRM_SIMULATOR_PORT: '0',
};

/** The environment of a stack started by a test or a benchmark: this process's, the ephemeral one, then `overrides`. */
export function stackEnv(overrides: Record<string, string> = {}): Record<string, string | undefined> {
  return { ...process.env, ...EPHEMERAL_STACK_ENV, ...overrides };
}

/** Meta's notification of one inbound text message into a group of the demo channel (WHATSAPP-GROUPS §1.3). */
export function inboundGroupText(message: { groupId: string; wamid: string; text: string; from?: string }) {
  return {
    object: 'whatsapp_business_account',
    entry: [
      {
        id: '100000000000900',
        changes: [
          {
            field: 'messages',
            value: {
              messaging_product: 'whatsapp',
              metadata: { display_phone_number: '4915100000001', phone_number_id: '100000000000001' },
              messages: [
                {
                  from: message.from ?? '4915112345678',
                  id: message.wamid,
                  timestamp: String(Math.floor(Date.now() / 1000)),
                  type: 'text',
                  text: { body: message.text },
                  group_id: message.groupId,
                },
              ],
            },
          },
        ],
      },
    ],
  };
}

/** `inboundGroupText` as Meta posts it: the body and its headers, signed with the app secret. */
export function signedInboundGroupText(
  message: Parameters<typeof inboundGroupText>[0],
  appSecret: string,
): { body: string; headers: Record<string, string> } {
  return signedMetaRequest(inboundGroupText(message), appSecret);
}
