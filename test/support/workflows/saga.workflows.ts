/**
 * Workflows that drive the Saga helper (workflows/saga.ts) on its own, for
 * test/integration/saga.test.ts: each returns what happened, in order.
 */
import { CancellationScope, isCancellation, sleep } from '@temporalio/workflow';
import { Saga } from '../../../workflows/saga';

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
