/** The floor workflow's one step (workflows/bench.workflows.ts): nothing, so that what it costs is Temporal's and the SDK's alone. */
export function benchActivities() {
  return {
    benchNoop: async (): Promise<null> => null,
  };
}
