/**
 * Workflows that drive the saga runner (workflows/saga.ts) on its own, for
 * test/integration/saga.test.ts: each returns what happened, in order.
 */
import { ApplicationFailure, CancellationScope, isCancellation, proxyLocalActivities, sleep } from '@temporalio/workflow';
import { Saga, type LocalAttempt } from '../../../workflows/saga';
import type { LocalRun } from '../../../workflows/saga.types';

type Step = 'hold' | 'debit' | 'book';

/** The steps run until `failAt` throws; the undos then run as the payment runs them, told why. */
export async function sagaFails(failAt: Step | 'none'): Promise<{ log: string[]; failedStep?: Step }> {
  const log: string[] = [];
  const saga = new Saga<Step, string>();
  const run = (name: Step) => async () => {
    // A step's undo is registered before it runs, so a step that throws is still undone.
    if (name === failAt) throw new Error(`${name} refused`);
    log.push(`did ${name}`);
    return name.length;
  };
  try {
    await saga.step('hold', run('hold'), async (why) => log.push(`undo hold (${why})`));
    const n = await saga.step('debit', run('debit'));
    // An undo that needs what a step returned is registered after it.
    saga.undo(async (why) => log.push(`undo debit of ${n} (${why})`));
    await saga.step('book', run('book'), async (why) => log.push(`undo book (${why})`));
    return { log };
  } catch (err) {
    await saga.compensate(`${saga.failedStep} failed`, async (undo) => {
      log.push('try');
      await undo();
    });
    // Compensating again finds nothing left to undo.
    await saga.compensate('again');
    return { log: [...log, (err as Error).message], failedStep: saga.failedStep };
  }
}

/** Cancelled while its last step waits: the undos still run, timers and all (non-cancellable). */
export async function sagaCancelled(): Promise<string[]> {
  const log: string[] = [];
  const saga = new Saga<Step, string>();
  try {
    await saga.step(
      'hold',
      async () => log.push('did hold'),
      async (why) => {
        await sleep(10);
        log.push(`undo hold (${why})`);
      },
    );
    await saga.step(
      'book',
      () => sleep('1 day'),
      async (why) => {
        await sleep(10);
        log.push(`undo book (${why})`);
      },
    );
  } catch (err) {
    if (!isCancellation(err)) throw err;
    log.push(`cancelled in ${saga.failedStep}; scope cancelled: ${CancellationScope.current().consideredCancelled}`);
    await saga.compensate('cancelled');
  }
  return log;
}

/** The test's local run: answers what it is given, or fails without an answer (null). */
export const localRunActivities = {
  async localRun(answer: LocalRun | null): Promise<LocalRun> {
    if (!answer) throw new Error('no answer');
    return answer;
  },
};
const local = proxyLocalActivities<typeof localRunActivities>({ scheduleToCloseTimeout: '10s', retry: { maximumAttempts: 1 } });

/**
 * hold and debit run locally first (the local run answers `answer`); what it did not finish
 * runs as "its own activity", told what the local run did there. `failAt` fails that step
 * when it runs on its own. After the pivot nothing is undone.
 */
export async function sagaRunsLocally(answer: LocalRun | null, failAt?: Step): Promise<{ log: string[]; results: unknown[] }> {
  const log: string[] = [];
  const results: unknown[] = [];
  const saga = new Saga<Step, string>();
  saga.runLocally({ hold: { activity: 'holdRooms' }, debit: { activity: 'debitWallet' } }, () => local.localRun(answer));
  const run = (name: Step) => (attempt: LocalAttempt) =>
    attempt.orRun(async () => {
      log.push(
        `${name} (${attempt.activity || 'not local'}) on its own, tried: ${attempt.tried}${attempt.stopped ? `, stopped: ${attempt.stopped.message}` : ''}`,
      );
      if (name === failAt) throw ApplicationFailure.nonRetryable(`${name} refused`, 'refused');
      return `${name} on its own`;
    });
  try {
    results.push(await saga.step('hold', run('hold'), async (why) => log.push(`undo hold (${why})`)));
    results.push(await saga.step('debit', run('debit')));
    saga.pivot();
    results.push(await saga.step('book', run('book')));
  } catch (err) {
    await saga.compensate(`${saga.failedStep}: ${(err as Error).message}`);
    log.push(`failed in ${saga.failedStep}`);
  }
  return { log, results };
}
