/** The floor workflow's one step (floor.workflows.ts): nothing, so that what it costs is Temporal's and the SDK's alone. */
export function floorActivities() {
  return {
    benchNoop: async (): Promise<null> => null,
  };
}

export type FloorActivities = ReturnType<typeof floorActivities>;
