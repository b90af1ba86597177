/** Whether a process exists (EPERM: it exists, owned by another user, e.g. the postgres server run as root's child). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
