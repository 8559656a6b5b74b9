import { AsyncLocalStorage } from 'node:async_hooks';

/** The request being served, for what runs on its behalf deeper down (workflow memos, logs). */
const context = new AsyncLocalStorage<{ requestId: string }>();

export const withRequestId = <T>(requestId: string, run: () => Promise<T>) => context.run({ requestId }, run);
export const currentRequestId = (): string | undefined => context.getStore()?.requestId;
