import type { Workflow } from '@temporalio/common';
import type * as registered from './index';

/**
 * The workflows the worker registers (the functions workflows/index.ts exports), by type
 * name. Whoever starts one by name — the API (src/temporal/workflows.ts, startOrJoin), a
 * workflow's follow-up (pay.types.ts, FollowUp) — names it through these types, so a
 * renamed workflow or a changed argument or result breaks the build. Types only: nothing
 * outside the worker loads a workflow body.
 */
export type Workflows = { [K in keyof typeof registered as (typeof registered)[K] extends Workflow ? K : never]: (typeof registered)[K] };

/** A workflow type name the worker knows. */
export type WorkflowType = keyof Workflows & string;
