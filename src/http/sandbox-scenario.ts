/**
 * The X-Sandbox-Scenario header on the API: which values an operation accepts, what the
 * document says they do (both from the contract, src/sandbox/scenarios.ts), and what a request
 * asks for. A value outside an operation's enum is a validation error, sandbox or not; outside
 * the sandbox the listed values are accepted and ignored.
 */
import { z } from '@hono/zod-openapi';
import { SCENARIO_OPERATIONS, type ScenarioOperationName } from '../sandbox/scenarios';

type Operation<N extends ScenarioOperationName> = (typeof SCENARIO_OPERATIONS)[N];
type Accepted<N extends ScenarioOperationName> = Operation<N>['accepts'][number];

/**
 * The header parameter of operation `name` (or of several, for a route that is each of them:
 * the payment, which also tickets a flight): its enum, and a description of what each value does there.
 */
export const sandboxScenario = <N extends ScenarioOperationName>(...names: [N, ...N[]]) => {
  const ops = names.map((n) => SCENARIO_OPERATIONS[n] as { accepts: readonly string[]; effects: Partial<Record<string, string>> });
  const accepts = [...new Set(ops.flatMap((o) => o.accepts))] as unknown as Operation<N>['accepts'];
  const effects: Partial<Record<string, string>> = Object.assign({}, ...ops.map((o) => o.effects));
  const inert = accepts.filter((s) => effects[s] === undefined);
  const description = [
    'Sandbox only: what the simulated supplier (or embassy) does with this request. Honoured when the engine runs with `SANDBOX` on (the default of `npm start`); ' +
      'otherwise every listed value is accepted and ignored. Any other value is refused as a validation error, sandbox or not.',
    '',
    ...accepts.filter((s) => effects[s] !== undefined).map((s) => `- \`${s}\`: ${effects[s]}`),
    ...(inert.length > 0 ? [`- accepted, but nothing to simulate on this operation: ${inert.map((s) => `\`${s}\``).join(', ')}`] : []),
  ].join('\n');
  return z.object({
    'x-sandbox-scenario': z
      .enum(accepts as unknown as [Accepted<N>, ...Accepted<N>[]], { error: `must be one of ${accepts.join(', ')}` })
      .optional()
      .openapi({ param: { name: 'x-sandbox-scenario', in: 'header', description }, description: 'A sandbox scenario' }),
  });
};

/** The scenario a request's X-Sandbox-Scenario header asks for: honoured only when the engine runs as a sandbox. */
export const scenarioOf = <S extends string>(deps: { sandbox: boolean }, headers: { 'x-sandbox-scenario'?: S }): S | undefined =>
  deps.sandbox ? headers['x-sandbox-scenario'] : undefined;

/**
 * What the sandbox embassy decides on the visa application a request makes: approve unless
 * the header says visa_reject, after the sandbox's decision delay; null outside the sandbox.
 */
export const embassyDecisionOf = (
  deps: { sandbox: boolean; holds: { visaDecisionMs: number } },
  headers: { 'x-sandbox-scenario'?: Accepted<'visaRequest'> },
): { approve: boolean; afterMs: number } | null =>
  deps.sandbox ? { approve: headers['x-sandbox-scenario'] !== 'visa_reject', afterMs: deps.holds.visaDecisionMs } : null;
