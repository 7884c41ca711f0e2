/**
 * Faults on demand: the failures a client must survive, each on a share of calls (or on the
 * next N calls), seeded so that a failing test replays. SPEC grammar and each fault's damage:
 * docs/simulator.md#the-spec-grammar
 */
import { hash32, hashUnit, seededRandom } from './hash.js';
import type { WireFormat } from './formats.js';

export { FAULT_SPEC_HELP } from '../usage.js';

/** Kinds of fault the simulator injects. */
export const FAULT_KINDS = [
  '500',
  '502',
  '503',
  '429',
  'slow',
  'reset',
  'truncate',
  'malformed',
  'badrecord',
] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

/** Damage done to a bad record. */
export const BAD_RECORD_KINDS = ['date', 'id', 'number', 'nul', 'int', 'money', 'year0', 'bigid'] as const;
export type BadRecordKind = (typeof BAD_RECORD_KINDS)[number];

/** One parsed fault of a spec. */
export interface FaultRule {
  kind: FaultKind;
  /** Share of matching calls (or of records, for badrecord). */
  rate?: number;
  /** Calls left in the count form. */
  count?: number;
  method?: string;
  ms: number;
  burst: number;
  retryAfter: number;
  /** The damage kinds a bad record is given one of. */
  badKinds: readonly BadRecordKind[];
  ids?: Set<string>;
}

/** A parsed spec: its rules and the seed of its draws. */
export interface FaultSpec {
  rules: FaultRule[];
  seed?: number;
  text: string;
}

/** Default delay of a slow reply: past any reasonable client timeout. */
export const DEFAULT_SLOW_MS = 60_000;

function fail(item: string, problem: string): never {
  throw new Error(`invalid fault '${item}': ${problem}`);
}

function parseRate(item: string, text: string): number {
  const percent = text.endsWith('%');
  const value = Number(percent ? text.slice(0, -1) : text);
  const rate = percent ? value / 100 : value;
  if (text === '' || !Number.isFinite(rate) || rate < 0 || rate > 1)
    fail(item, `rate '${text}' is not a share in [0, 1] or a percentage`);
  return rate;
}

function parseInteger(item: string, name: string, text: string, min: number): number {
  if (!/^\d+$/.test(text) || Number(text) < min)
    fail(item, `${name} '${text}' is not an integer of at least ${min}`);
  return Number(text);
}

/** Parses a fault SPEC (grammar in this module's comment); throws with the offending item. */
export function parseFaultSpec(text: string): FaultSpec {
  const spec: FaultSpec = { rules: [], text };
  for (const raw of text.split(',')) {
    const item = raw.trim();
    if (item === '') continue;
    const seedMatch = /^seed=(\d+)$/.exec(item);
    if (seedMatch) {
      spec.seed = Number(seedMatch[1]);
      continue;
    }
    const [head, ...options] = item.split(':');
    const match = /^([a-z0-9]+?)(?:@([0-9.]+%?)|x(\d+))?$/.exec(head!.trim().toLowerCase());
    if (!match || !(FAULT_KINDS as readonly string[]).includes(match[1]!)) {
      fail(item, `expected KIND[@RATE|xCOUNT] with KIND one of ${FAULT_KINDS.join(', ')}`);
    }
    const rule: FaultRule = {
      kind: match[1] as FaultKind,
      ms: DEFAULT_SLOW_MS,
      burst: 3,
      retryAfter: 1,
      badKinds: BAD_RECORD_KINDS,
    };
    if (match[2] !== undefined) rule.rate = parseRate(item, match[2]);
    if (match[3] !== undefined) rule.count = parseInteger(item, 'count', match[3], 1);
    for (const option of options) {
      const [name, value = ''] = option.split('=');
      switch (name!.trim()) {
        case 'method':
          rule.method = value.trim();
          break;
        case 'ms':
          rule.ms = parseInteger(item, 'ms', value.trim(), 0);
          break;
        case 'burst':
          rule.burst = parseInteger(item, 'burst', value.trim(), 1);
          break;
        case 'retry':
          rule.retryAfter = parseInteger(item, 'retry', value.trim(), 0);
          break;
        case 'kind': {
          const kinds = new Set<BadRecordKind>();
          for (const kind of value.split('|').map((part) => part.trim())) {
            if (kind === 'any') BAD_RECORD_KINDS.forEach((each) => kinds.add(each));
            else if ((BAD_RECORD_KINDS as readonly string[]).includes(kind)) kinds.add(kind as BadRecordKind);
            else fail(item, `kind '${kind}' is not one of ${BAD_RECORD_KINDS.join(', ')} or any`);
          }
          rule.badKinds = BAD_RECORD_KINDS.filter((kind) => kinds.has(kind));
          break;
        }
        case 'ids':
          rule.ids = new Set(
            value
              .split('|')
              .map((id) => id.trim())
              .filter((id) => id !== ''),
          );
          break;
        default:
          fail(item, `unknown option '${option}'`);
      }
    }
    if (rule.kind === 'badrecord' && rule.count !== undefined)
      fail(item, 'badrecord takes a RATE or ids=, not a COUNT');
    if (rule.kind !== 'badrecord' && rule.ids) fail(item, 'ids= is for badrecord only');
    if (rule.kind === 'badrecord' && rule.ids && rule.rate !== undefined)
      fail(item, 'give either a RATE or ids=, not both');
    if (rule.rate === undefined && rule.count === undefined && !rule.ids) rule.rate = 1;
    spec.rules.push(rule);
  }
  return spec;
}

/** What a call fault does to one call. */
export type CallFault =
  | { kind: 'status'; status: 500 | 502 | 503 | 429; retryAfter?: number }
  | { kind: 'slow'; ms: number }
  | { kind: 'reset' }
  | { kind: 'truncate' }
  | { kind: 'malformed' };

function callFaultOf(rule: FaultRule): CallFault {
  switch (rule.kind) {
    case '500':
    case '502':
    case '503':
      return { kind: 'status', status: Number(rule.kind) as 500 | 502 | 503 };
    case '429':
      return { kind: 'status', status: 429, retryAfter: rule.retryAfter };
    case 'slow':
      return { kind: 'slow', ms: rule.ms };
    case 'reset':
      return { kind: 'reset' };
    case 'truncate':
      return { kind: 'truncate' };
    case 'malformed':
      return { kind: 'malformed' };
    case 'badrecord':
      throw new Error('badrecord is not a call fault');
  }
}

/**
 * Decides, call by call, which fault (if any) hits, and which records are bad. Holds the
 * state of count forms, 429 bursts and the seeded draws; a new spec starts them afresh.
 */
export class FaultInjector {
  private readonly random: () => number;
  private readonly seed: number;
  private readonly burstLeft = new Map<FaultRule, number>();

  constructor(
    readonly spec: FaultSpec,
    simulatorSeed: number,
  ) {
    this.seed = spec.seed ?? hash32(simulatorSeed, 'faults');
    this.random = seededRandom(this.seed);
  }

  /** The fault of the next call of `method`, or undefined for a clean call. */
  nextCall(method: string): CallFault | undefined {
    let chosen: CallFault | undefined;
    for (const rule of this.spec.rules) {
      if (rule.kind === 'badrecord' || (rule.method !== undefined && rule.method !== method)) continue;
      let fires = false;
      const burst = this.burstLeft.get(rule) ?? 0;
      if (burst > 0) {
        this.burstLeft.set(rule, burst - 1);
        fires = true;
      } else if (rule.count !== undefined) {
        if (rule.count > 0 && !chosen) {
          rule.count -= 1;
          fires = true;
        }
      } else if (rule.rate !== undefined) {
        fires = this.random() < rule.rate;
      }
      if (fires && !chosen) {
        chosen = callFaultOf(rule);
        // A rate-drawn 429 starts a burst; in the count form the count is the burst.
        if (rule.kind === '429' && burst === 0 && rule.count === undefined)
          this.burstLeft.set(rule, rule.burst - 1);
      }
    }
    return chosen;
  }

  /** Whether any badrecord rule applies to `method` (getLeases, getInvoices and getPropertyUnits only). */
  hasBadRecords(method: string): boolean {
    return (
      RECORD_METHODS.includes(method) &&
      this.spec.rules.some(
        (rule) => rule.kind === 'badrecord' && (rule.method === undefined || rule.method === method),
      )
    );
  }

  /** The damage to a record of `method` with the given id, or undefined when it renders clean. */
  badRecord(method: string, recordId: string): BadRecordKind | undefined {
    for (const rule of this.spec.rules) {
      if (rule.kind !== 'badrecord' || (rule.method !== undefined && rule.method !== method)) continue;
      const bad = rule.ids
        ? rule.ids.has(recordId)
        : hashUnit(this.seed, `badrecord:${method}:${recordId}`) < (rule.rate ?? 0);
      if (!bad) continue;
      return rule.badKinds.length === 1
        ? rule.badKinds[0]
        : rule.badKinds[hash32(this.seed, `badkind:${recordId}`) % rule.badKinds.length];
    }
    return undefined;
  }
}

/** Text that cannot be a date. */
export const BAD_DATE = '13/45/20X4';
/** Text where a number belongs. */
export const BAD_NUMBER = 'N/A';
/** A date in year 0 (no such year; Postgres's dates start at 4713 BC but the source's at year 1). */
export const YEAR_ZERO_DATE = '01/15/0000';
/** An integer past a smallint column (at most 32767). */
export const BIG_INT = 987654;
/** Amounts past numeric(14,2): 16 whole digits, or 3 decimals. */
export const BAD_MONEY = ['1234567890123456.00', '1470.125'] as const;
/** An id of 25 digits, past what bigint holds. */
export const BIG_ID = '1234567890123456789012345';

/** Where each kind of damage goes in a record of each method: a field path (dots; a list's first element). */
const DAMAGE_FIELDS: Record<string, Record<Exclude<BadRecordKind, 'id'>, string>> = {
  getLeases: {
    date: 'moveInDate',
    number: 'leaseIntervalId',
    nul: 'propertyName',
    int: 'occupancyTypeId',
    money: 'scheduledCharges.scheduledCharge.amount',
    year0: 'moveInDate',
    bigid: 'floorPlanId',
  },
  getInvoices: {
    date: 'postDate',
    number: 'amount',
    nul: 'invoiceNumber',
    int: 'invoiceTypeId',
    money: 'amount',
    year0: 'postDate',
    bigid: 'vendor.id',
  },
  getPropertyUnits: {
    date: 'units.unit.unitSpaces.unitSpace.availableDate',
    number: 'units.unit.unitSpaces.unitSpace.rent',
    nul: 'units.unit.unitNumber',
    int: 'units.unit.unitTypeId',
    money: 'units.unit.unitSpaces.unitSpace.rent',
    year0: 'units.unit.unitSpaces.unitSpace.availableDate',
    bigid: 'units.unit.floorplanId',
  },
};

/** The id field of a method's records, where it is not `id`. */
const ID_FIELDS: Record<string, string> = { getPropertyUnits: 'propertyId' };

/** Methods whose records the badrecord fault damages. */
export const RECORD_METHODS = Object.keys(DAMAGE_FIELDS);

/** The damaged value of a field (its clean value given) for a kind of damage. */
function damagedValue(kind: Exclude<BadRecordKind, 'id'>, clean: unknown, recordId: string): unknown {
  switch (kind) {
    case 'date':
      return BAD_DATE;
    case 'number':
      return BAD_NUMBER;
    case 'nul': {
      const text = String(clean);
      const middle = Math.floor(text.length / 2);
      return `${text.slice(0, middle)}\u0000${text.slice(middle)}`;
    }
    case 'int':
      return typeof clean === 'number' ? BIG_INT : String(BIG_INT);
    case 'money':
      return BAD_MONEY[hash32(0, `money:${recordId}`) % BAD_MONEY.length];
    case 'year0':
      return YEAR_ZERO_DATE;
    case 'bigid':
      return BIG_ID;
  }
}

/** Damages a rendered record (a fresh copy, never the stored one) in place. */
export function damageRecord(
  method: string,
  record: Record<string, unknown>,
  kind: BadRecordKind,
  recordId: string = String(record.id),
): void {
  const fields = DAMAGE_FIELDS[method];
  if (!fields) return;
  if (kind === 'id') {
    delete record[ID_FIELDS[method] ?? 'id'];
    return;
  }
  const target = ownedHolder(record, fields[kind]);
  if (target) target.holder[target.key] = damagedValue(kind, target.holder[target.key], recordId);
}

/**
 * The object holding a path's last field and that field's name, or undefined when the path is
 * not in the record (a list stands for its first element). Every object on the way is replaced
 * by a shallow copy, since a render shares nested containers with the stored record.
 */
function ownedHolder(
  record: Record<string, unknown>,
  path: string,
): { holder: Record<string, unknown>; key: string } | undefined {
  const steps = path.split('.');
  let node = record;
  for (const step of steps.slice(0, -1)) {
    const child = node[step];
    const first: unknown = Array.isArray(child) ? child[0] : child;
    if (first === null || typeof first !== 'object') return undefined;
    const copy = { ...(first as Record<string, unknown>) };
    node[step] = Array.isArray(child) ? [copy, ...child.slice(1)] : copy;
    node = copy;
  }
  const key = steps[steps.length - 1]!;
  return key in node ? { holder: node, key } : undefined;
}

/** A body that does not parse: JSON with an unquoted first key, XML whose root is never closed. */
export function malformBody(format: WireFormat, body: string): string {
  if (format === 'json') return body.replace(/^\{"([A-Za-z]+)"/, '{$1');
  const end = body.lastIndexOf('</');
  return end > 0 ? `${body.slice(0, end)}</${body.slice(end + 2, -1)}` : `${body}<`;
}

/** The first half of a body (at least one byte short of the whole). */
export function truncateBody(body: Buffer): Buffer {
  return body.subarray(0, Math.max(0, Math.min(body.length - 1, Math.floor(body.length / 2))));
}
