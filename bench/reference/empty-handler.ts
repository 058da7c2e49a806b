/** P1 floor: a handler that imports nothing. */
export const handler = async () => ({ statusCode: 200 });
