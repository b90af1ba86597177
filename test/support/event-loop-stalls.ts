import { PerformanceObserver, type PerformanceEntry } from 'node:perf_hooks';

/** A turn of the event loop that came this much later than its timer asked: reported. */
const STALL_MS = 1_000;
const TICK_MS = 100;

export interface EventLoopStallWatch {
  /** One line per stall seen so far: when, how long, which test, the CPU this process used and the GC pauses in it. */
  stalls(): string[];
  stop(): void;
}

/** The test a stall began in, and the one running when it ended if another. */
function during(began: string | undefined, ended: string | undefined): string {
  const name = (test: string | undefined) => `"${test ?? 'set-up'}"`;
  return began === ended ? `during ${name(began)}` : `from ${name(began)} into ${name(ended)}`;
}

/**
 * Watches this process's event loop for stalls while a file's tests run. Its CPU time over a stall says what the
 * stall was: about as long as the stall, the process was busy (synchronous work or garbage collection, whose pauses
 * are listed); near zero, it was not running at all (not scheduled, or blocked in a system call).
 */
export function watchEventLoopStalls(currentTest: () => string | undefined): EventLoopStallWatch {
  const gcPauses: PerformanceEntry[] = [];
  const gc = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) if (entry.duration >= 50) gcPauses.push(entry);
    if (gcPauses.length > 1_000) gcPauses.splice(0, gcPauses.length - 1_000);
  });
  gc.observe({ entryTypes: ['gc'] });
  const found: string[] = [];
  let last = performance.now();
  let lastCpu = process.cpuUsage();
  let lastUsage = process.resourceUsage();
  let lastTest = currentTest();
  const timer = setInterval(() => {
    const now = performance.now();
    const cpu = process.cpuUsage();
    const usage = process.resourceUsage();
    const late = now - last - TICK_MS;
    if (late >= STALL_MS) {
      const cpuMs = (cpu.user - lastCpu.user + cpu.system - lastCpu.system) / 1000;
      const paused = gcPauses.filter((e) => e.startTime >= last && e.startTime <= now);
      const gcMs = paused.reduce((sum, e) => sum + e.duration, 0);
      found.push(
        `${new Date(Date.now() - (now - last)).toISOString()}: the event loop stalled ${Math.round(late)} ms ${during(lastTest, currentTest())}; ` +
          `CPU used ${Math.round(cpuMs)} ms, GC ${Math.round(gcMs)} ms in ${paused.length} pauses, ` +
          `context switches ${usage.voluntaryContextSwitches - lastUsage.voluntaryContextSwitches} voluntary / ${usage.involuntaryContextSwitches - lastUsage.involuntaryContextSwitches} involuntary, ` +
          `resident ${Math.round(process.memoryUsage.rss() / 1_048_576)} MiB`,
      );
    }
    last = now;
    lastTest = currentTest();
    lastCpu = cpu;
    lastUsage = usage;
  }, TICK_MS);
  timer.unref();
  return {
    stalls: () => [...found],
    stop() {
      clearInterval(timer);
      gc.disconnect();
    },
  };
}
