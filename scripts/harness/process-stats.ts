/**
 * What Linux's /proc says about a process: resident memory (VmRSS, and VmHWM, its peak), the executable it runs,
 * the CPU time it has used, its open-file limits and open descriptors. Every reader answers null where /proc
 * cannot tell (another OS, a process that has exited), never throws.
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { basename } from 'node:path';
import { round } from './stats.ts';

/** A process: its pid, or 'self' for this one. */
export type Pid = number | 'self';

/** VmRSS and VmHWM of a process in MiB, rounded to `decimals`. */
export function readRss(pid: Pid | undefined, decimals = 0): { rssMb: number | null; peakMb: number | null } {
  if (pid === undefined) return { rssMb: null, peakMb: null };
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const mb = (name: string) => {
      const m = new RegExp(`${name}:\\s+(\\d+) kB`).exec(status);
      return m ? round(Number(m[1]) / 1024, decimals) : null;
    };
    return { rssMb: mb('VmRSS'), peakMb: mb('VmHWM') };
  } catch {
    return { rssMb: null, peakMb: null };
  }
}

/** The file name of the executable a process runs (`node`, `bun`, `deno`; never a wrapper's when exec'd). */
export function readExe(pid: Pid | undefined): string | null {
  if (pid === undefined) return null;
  try {
    return basename(readlinkSync(`/proc/${pid}/exe`));
  } catch {
    return null;
  }
}

let clockTicks: number | null = null;

/** Clock ticks per second of /proc/<pid>/stat times (asked of getconf once). */
function ticksPerSecond(): number {
  clockTicks ??= Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout?.trim()) || 100;
  return clockTicks;
}

/** CPU seconds (user + system) a process has used so far. */
export function cpuSeconds(pid: Pid | undefined): number | null {
  if (pid === undefined) return null;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the parenthesised command name; utime and stime are the 14th and 15th of the whole line.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / ticksPerSecond();
  } catch {
    return null;
  }
}

/** The open-file limits (soft and hard, as /proc writes them: a number or "unlimited") of a process. */
export function fdLimits(pid: Pid): { soft: string; hard: string } | null {
  try {
    const m = /^Max open files\s+(\S+)\s+(\S+)/m.exec(readFileSync(`/proc/${pid}/limits`, 'utf8'));
    return m ? { soft: m[1], hard: m[2] } : null;
  } catch {
    return null;
  }
}

/** How many file descriptors (sockets among them) a process has open. */
export function openFds(pid: Pid): number | null {
  try {
    return readdirSync(`/proc/${pid}/fd`).length;
  } catch {
    return null;
  }
}
