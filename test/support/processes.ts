import { spawn, type ChildProcess } from 'node:child_process';
/** Whether a process exists (EPERM: it exists, owned by another user, e.g. the postgres server run as root's child). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Starts a built entry point (`node <main>`) with `env` on top of this process's, and resolves once its output
 * says `<readyText>`; rejects with that output if it exits or is not ready in time.
 */
export async function startBuiltProcess(main: string, env: Record<string, string>, readyText: string, timeoutMs = 30_000): Promise<ChildProcess> {
  const child = spawn(process.execPath, [main], { env: { ...process.env, NODE_OPTIONS: '', LOG_LEVEL: 'info', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  for (const deadline = Date.now() + timeoutMs; !out.includes(readyText); ) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${main} did not start: ${out}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return child;
}
