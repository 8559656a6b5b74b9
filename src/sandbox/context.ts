import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * The sandbox scenario a supplier call is made under. Scenarios are no part of any supplier
 * port: the caller (an activity, or the API for a read) runs the call inside `withScenario`,
 * and only the simulator's adapters read it, to send it to the simulator.
 */
const current = new AsyncLocalStorage<string>();

export const withScenario = <T>(scenario: string | undefined, run: () => Promise<T>): Promise<T> => (scenario ? current.run(scenario, run) : run());

export const currentScenario = (): string | undefined => current.getStore();
