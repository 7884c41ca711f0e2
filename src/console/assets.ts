import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

/** A file the console serves under /assets/. */
export interface Asset {
  type: string;
  body: Buffer;
}

/**
 * The console's own stylesheet and script (./assets/, copied beside the build by
 * scripts/build.mjs: every file sits two folders below the package's root, as in src/) and
 * uPlot's, read from its package in node_modules: served by the console itself, never a CDN.
 */
export function loadAssets(): Map<string, Asset> {
  const own = (name: string) => readFileSync(new URL(`../console/assets/${name}`, import.meta.url));
  const uplot = (name: string) => readFileSync(createRequire(import.meta.url).resolve(`uplot/dist/${name}`));
  return new Map<string, Asset>([
    ['/assets/console.css', { type: 'text/css; charset=utf-8', body: own('console.css') }],
    ['/assets/console.js', { type: 'text/javascript; charset=utf-8', body: own('console.js') }],
    ['/assets/uPlot.min.css', { type: 'text/css; charset=utf-8', body: uplot('uPlot.min.css') }],
    [
      '/assets/uPlot.iife.min.js',
      { type: 'text/javascript; charset=utf-8', body: uplot('uPlot.iife.min.js') },
    ],
  ]);
}
