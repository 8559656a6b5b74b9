/** One JSON line per event on stderr; nothing secret goes in here. */
export function logError(message: string, err: unknown, fields: Record<string, unknown> = {}): void {
  const e = err as Error;
  process.stderr.write(
    `${JSON.stringify({ level: 'error', time: new Date().toISOString(), msg: message, ...fields, error: e?.message, stack: e?.stack })}\n`,
  );
}

export function logInfo(message: string, fields: Record<string, unknown> = {}): void {
  process.stdout.write(`${JSON.stringify({ level: 'info', time: new Date().toISOString(), msg: message, ...fields })}\n`);
}
