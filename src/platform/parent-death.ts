import { onPath } from './executables';

/**
 * A command that ends when this process does. On Linux it runs through `setpriv --pdeathsig
 * TERM` (util-linux, in every Debian and Ubuntu base image): the kernel sends the child
 * SIGTERM when this process dies in any way, SIGKILL included, and the child keeps its own
 * process id (setpriv execs it). Elsewhere the command is given as it is, and the caller's own
 * stops are all there is.
 */
export function tiedToThisProcess(command: string, args: readonly string[]): { command: string; args: string[] } {
  const setpriv = process.platform === 'linux' ? onPath('setpriv') : undefined;
  return setpriv ? { command: setpriv, args: ['--pdeathsig', 'TERM', '--', command, ...args] } : { command, args: [...args] };
}
