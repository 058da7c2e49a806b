/** The other end of inChildProcess: runs one exported benchmark function and sends back its result. */
process.once('message', async (message: { module: string; exportName: string; args: unknown[] }) => {
  try {
    const module = (await import(message.module)) as Record<string, (...args: unknown[]) => Promise<unknown>>;
    const result = await module[message.exportName]!(...message.args);
    process.send!({ result }, () => process.exit(0));
  } catch (error) {
    process.send!({ error: (error as Error).stack ?? String(error) }, () => process.exit(1));
  }
});
