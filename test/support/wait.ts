/** Waits until `check` holds, polling; fails naming `what` after `boundMs`. */
export async function waitFor(check: () => boolean | Promise<boolean>, what: string, boundMs = 15_000): Promise<void> {
  const deadline = Date.now() + boundMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() > deadline) throw new Error(`timed out after ${boundMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
