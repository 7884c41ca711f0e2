// Writes the per-stream settings of config/propsync.example.yaml, generated from the stream
// manifests: `npm run docs:config`.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { exampleWithStreams } from '../src/config/example.js';

const path = resolve(dirname(fileURLToPath(import.meta.url)), '../config/propsync.example.yaml');
writeFileSync(path, exampleWithStreams(readFileSync(path, 'utf8')));
process.stdout.write('wrote the stream settings of config/propsync.example.yaml\n');
