/** What the numbers were measured on: CPU, cores, memory, Node version, date, and which code. */
import { execFileSync } from 'node:child_process';
import { availableParallelism, cpus, totalmem } from 'node:os';

export interface MachineInfo {
  readonly cpuModel: string;
  readonly cores: number;
  readonly memoryGb: number;
  readonly node: string;
  readonly platform: string;
  readonly date: string;
  /** `git rev-parse --short HEAD`, and whether lambdas/ or lib/ had uncommitted changes. */
  readonly commit: string;
  readonly uncommittedRuntimeChanges: boolean;
}

function git(args: string[]): string {
  try {
    return execFileSync('git', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return '';
  }
}

export function machineInfo(): MachineInfo {
  const list = cpus();
  return {
    cpuModel: list[0]?.model.trim() ?? 'unknown',
    cores: availableParallelism(),
    memoryGb: Math.round(totalmem() / 2 ** 30),
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
    date: new Date().toISOString(),
    commit: git(['rev-parse', '--short', 'HEAD']) || 'unknown',
    uncommittedRuntimeChanges: git(['status', '--porcelain', '--', 'lambdas', 'lib']).length > 0,
  };
}
