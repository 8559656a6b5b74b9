import { OpenAPIHono } from '@hono/zod-openapi';
import { operationHeads, type Security } from '../openapi-document';
import type { OperatorSession } from '../../domain/console/sessions';
import type { RequestIdVariables } from '../request-id';
import type { OperatorVariables } from './actions';

/** The admin app's variables: who acts, and the console session when one signed the request in. */
export type AdminEnv = { Variables: RequestIdVariables & OperatorVariables & { operatorSession?: OperatorSession } };

/**
 * A router of the admin API: invalid input answers 400 `{error}` naming the first field that
 * is wrong, as `body()` in ./input.ts words it; a path id's own schema words its whole message
 * ("partner: must be a positive integer id").
 */
export const adminRouter = () =>
  new OpenAPIHono<AdminEnv>({
    defaultHook: (result, c) => {
      if (result.success) return;
      const issue = result.error.issues[0]!;
      const error = result.target === 'param' ? issue.message : `${issue.path.join('.') || 'body'}: ${issue.message}`;
      return c.json({ error }, 400);
    },
  });

/** The admin API's security requirement: an operator's token, or the operator console's session. */
export const operatorSecured: Security = [{ OperatorToken: [] }, { OperatorSession: [] }];

/** The heads of the admin API's routes under a tag: `adminOperations(['Partners']).get(path, summary)`. */
export const adminOperations = operationHeads(operatorSecured);
