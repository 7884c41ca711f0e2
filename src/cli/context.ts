import type { Command } from 'commander';
import { loadConfig, loadOfflineConfig } from '../config/load.js';
import type { Config, OfflineConfig } from '../config/schema.js';

/** Options every command accepts. */
export interface GlobalOptions {
  config?: string;
}

/** The global options of the program a command belongs to. */
export function globalOptions(command: Command): GlobalOptions {
  let root = command;
  while (root.parent) root = root.parent;
  return root.opts<GlobalOptions>();
}

/** `--config`, or else `PROPSYNC_CONFIG`; an empty value (compose's unset variable) means none. */
function configPathOf(command: Command): string | undefined {
  return globalOptions(command).config || undefined;
}

/** The full configuration (source included) for commands that call the source. */
export function configFor(command: Command): Config {
  return loadConfig({ configPath: configPathOf(command) });
}

/** The configuration of commands that only touch the warehouse. */
export function offlineConfigFor(command: Command): OfflineConfig {
  return loadOfflineConfig({ configPath: configPathOf(command) });
}
