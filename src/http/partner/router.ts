import { OpenAPIHono, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { AgencySession } from '../../domain/console/sessions';
import type { Partner } from '../../domain/partners';
import type { PayRetryVariables } from '../rate-limit';
import type { RequestIdVariables } from '../request-id';

/** `consoleSession`: set when the request authenticated with the agency console's session cookie. */
export type PartnerEnv = { Variables: RequestIdVariables & PayRetryVariables & { partner: Partner; consoleSession?: AgencySession } };

function describeIssues(issues: z.core.$ZodIssue[]): string {
  return issues
    .slice(0, 5)
    .map((i) => `${i.path.length ? i.path.join('.') : 'body'}: ${i.message}`)
    .join('; ');
}

/** A router of Interface A: invalid input answers 400 with the envelope, naming the field. */
export const partnerRouter = () =>
  new OpenAPIHono<PartnerEnv>({
    strict: false,
    defaultHook: (result, c) => {
      if (!result.success) return c.json({ ok: false as const, error: describeIssues(result.error.issues) }, 400);
    },
  });

/** Interface A's success envelope, 200. */
export const ok = <T>(c: Context<PartnerEnv>, data: T) => c.json({ ok: true as const, data }, 200);
/** Interface A's success envelope for what a request created, 201. */
export const created = <T>(c: Context<PartnerEnv>, data: T) => c.json({ ok: true as const, data }, 201);

type DataWhen<O, Done extends boolean> = O extends { done: Done; data: infer X } ? X : never;

/** Interface A's answer to a step that may still be under way: 200 once done, else 202, the same envelope. */
export function doneOrUnderWay<O extends { done: boolean; data: unknown }>(c: Context<PartnerEnv>, out: O) {
  return out.done
    ? c.json({ ok: true as const, data: out.data as DataWhen<O, true> }, 200)
    : c.json({ ok: true as const, data: out.data as DataWhen<O, false> }, 202);
}
