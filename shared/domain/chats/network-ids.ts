/** Meta's wa_id is the phone number's digits; we show E.164. */
export const phoneFromWaId = (waId: string | undefined) => (waId ? `+${waId.replace(/^\+/, '')}` : null);
