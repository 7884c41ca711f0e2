import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

/** Debian's Chromium (`apt-get install chromium`; .ci/run installs it when missing). */
export const CHROMIUM = '/usr/bin/chromium';

/** A headless Chromium with a fresh profile that calls nobody on its own, and what its pages did. */
export interface TestBrowser {
  context: BrowserContext;
  /** A page that records its console errors and refuses (and records) every request off 127.0.0.1. */
  open(options?: { width?: number; height?: number; headers?: Record<string, string> }): Promise<WatchedPage>;
  close(): Promise<void>;
}

export interface WatchedPage {
  page: Page;
  /** Console errors and uncaught exceptions (a CSP violation is one). */
  errors: string[];
  /** Requests to any host but 127.0.0.1, refused. */
  offMachine: string[];
}

export async function launchBrowser(): Promise<TestBrowser> {
  const profile = mkdtempSync(join(tmpdir(), 'propsync-chromium-'));
  // A fresh profile (--user-data-dir), which playwright takes as the persistent context's folder.
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  return {
    context,
    async open(options = {}) {
      const page = await context.newPage();
      await page.setViewportSize({ width: options.width ?? 1280, height: options.height ?? 900 });
      if (options.headers) await page.setExtraHTTPHeaders(options.headers);
      const errors: string[] = [];
      const offMachine: string[] = [];
      page.on('console', (message) => {
        if (message.type() === 'error') errors.push(message.text());
      });
      page.on('pageerror', (error) => errors.push(error.message));
      await page.route('**/*', (route) => {
        const url = new URL(route.request().url());
        if (url.protocol === 'data:' || url.hostname === '127.0.0.1') return route.continue();
        offMachine.push(url.href);
        return route.abort();
      });
      return { page, errors, offMachine };
    },
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
