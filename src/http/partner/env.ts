import { OpenAPIHono, z } from '@hono/zod-openapi';
import type { Partner } from '../../domain/partners';
import type { RequestIdVariables } from '../request-id';

export type PartnerEnv = { Variables: RequestIdVariables & { partner: Partner } };

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
