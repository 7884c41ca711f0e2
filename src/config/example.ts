import { stringify } from 'yaml';
import { z } from 'zod';
import { STREAM_MANIFESTS } from '../streams/registry.js';
import { settingsSchemaOf } from '../streams/settings.js';
import type { StreamManifest } from '../streams/types.js';

/** The command that writes the generated part of the example configuration. */
export const EXAMPLE_COMMAND = 'npm run docs:config';

const START = `# generated from the stream manifests by \`${EXAMPLE_COMMAND}\`: edit those, not this`;
const END = '# end of the generated stream settings';
const WIDTH = 80;

/** `text` as comment lines at `indent`, cut at word boundaries to fit WIDTH. */
function comment(text: string, indent: string): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/)) {
    if (line && indent.length + 2 + line.length + 1 + word.length > WIDTH) {
      lines.push(line);
      line = word;
    } else {
      line = line ? `${line} ${word}` : word;
    }
  }
  if (line) lines.push(line);
  return lines.map((text) => `${indent}# ${text}`);
}

/** One stream's section: each setting with its description and default. */
function streamSection(manifest: StreamManifest): string[] {
  const settings = settingsSchemaOf(manifest);
  if (!(settings instanceof z.ZodObject))
    throw new Error(`the settings of stream ${manifest.name} are not an object`);
  const defaults = settings.parse({}) as Record<string, unknown>;
  const lines = [
    ...comment(`Backfills of ${manifest.name} go by ${manifest.backfillBy}.`, '  '),
    `  ${manifest.name}:`,
  ];
  for (const [key, schema] of Object.entries(settings.shape as Record<string, z.ZodType>)) {
    if (!schema.description) throw new Error(`setting streams.${manifest.name}.${key} has no description`);
    lines.push(...comment(schema.description, '    '), `    ${key}: ${stringify(defaults[key]).trim()}`);
  }
  return lines;
}

/** `source.versions`: each stream's method at its default version. */
function versionsSection(): string[] {
  return STREAM_MANIFESTS.map(({ method }) => `    ${method.name}: ${method.defaultVersion}`);
}

/** `lines` with what stands between the markers at `indent` replaced by `body`. */
function replaceBetween(lines: string[], indent: string, body: string[]): string[] {
  const start = lines.indexOf(`${indent}${START}`);
  const end = lines.indexOf(`${indent}${END}`, start);
  if (start < 0 || end < start)
    throw new Error(
      `the markers of generated stream settings are missing:\n${indent}${START}\n${indent}${END}`,
    );
  return [...lines.slice(0, start + 1), ...body, ...lines.slice(end)];
}

/**
 * The example configuration with its per-stream parts generated from the registry, each between
 * the markers: `source.versions` (at four spaces) and `streams` (at two).
 */
export function exampleWithStreams(example: string): string {
  const withVersions = replaceBetween(example.split('\n'), '    ', versionsSection());
  return replaceBetween(withVersions, '  ', STREAM_MANIFESTS.flatMap(streamSection)).join('\n');
}
