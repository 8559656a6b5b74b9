import type { Workflow } from '@temporalio/common';
import type * as registered from './index';
import type { Workflows } from './registry.types';

/** What workflows/index.ts registers, by name. */
type Registered = { [K in keyof typeof registered as (typeof registered)[K] extends Workflow ? K : never]: (typeof registered)[K] };

/** The declared registry and the registered workflows are the same, both ways (checked by tsc; nothing imports this file). */
export type RegistryMatches = [Registered extends Workflows ? true : never, Workflows extends Registered ? true : never];
export const registryMatches: RegistryMatches = [true, true];
