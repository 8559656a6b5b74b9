/**
 * Waits until `check` holds, polling every `everyMs`; fails after `boundMs` naming `what`
 * (a function is read at that moment, so it can tell what was seen last).
 */
export async function waitFor(check: () => boolean | Promise<boolean>, what: string | (() => string), boundMs = 15_000, everyMs = 50): Promise<void> {
  const deadline = Date.now() + boundMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() > deadline) throw new Error(`timed out after ${boundMs} ms waiting for ${typeof what === 'function' ? what() : what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
