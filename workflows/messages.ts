/**
 * How a workflow's failure messages quote the reason they were given (a supplier's answer,
 * a step's error). No imports, so the workflow bundle and plain tests can both use it.
 */

/** The words of a message, for comparing: lower case, punctuation and spacing gone. */
const wordsOf = (s: string) =>
  s
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();

/**
 * `what`, then the reason in parentheses when it tells something `what` does not: a reason
 * that only repeats it ("the hotel refused the cancellation (the hotel refused the
 * cancellation)") or is empty is left out.
 */
export function withReason(what: string, reason: string): string {
  const said = wordsOf(reason);
  return said === '' || wordsOf(what).includes(said) ? what : `${what} (${reason})`;
}
