export const tourPrebookExpiryWorkflowId = (prebookId: number) => `tour-prebook-expiry:p${prebookId}`;
