import type { SimLease } from '../data/model.js';
import type { ApiVersion } from './routes.js';
import { residentFriendlyName } from '../data/index.js';

/** What shapes one rendered lease. */
export interface LeaseRenderOptions {
  version: ApiVersion;
  includeHistory: boolean;
  includeAr: boolean;
  residentFriendly: boolean;
}

type Tree = Record<string, unknown>;

function chargesFor(lease: SimLease, options: LeaseRenderOptions): Tree | undefined {
  const container = lease.scheduledCharges;
  if (!container) return undefined;
  let charges = container.scheduledCharge;
  // r2 added application-related charges (those carrying an applicationId); r1 leaves them out.
  if (options.version === 'r1') charges = charges.filter((charge) => charge.applicationId === undefined);
  if (options.residentFriendly) {
    charges = charges.map((charge) => {
      const name = residentFriendlyName(Number(charge.chargeCodeId));
      return name === undefined ? charge : { ...charge, chargeCode: name };
    });
  }
  return { scheduledCharge: charges };
}

function arFor(lease: SimLease, options: LeaseRenderOptions): Tree | undefined {
  const container = lease.arTransactions;
  if (!container) return undefined;
  if (!options.residentFriendly) return container as unknown as Tree;
  return {
    arTransaction: container.arTransaction.map((ar) => {
      const name = residentFriendlyName(ar.arCodeId);
      return name === undefined ? ar : { ...ar, arCodeName: name };
    }),
  };
}

/**
 * One lease as the given version sends it, before the wire quirks: r2 is the stored shape;
 * r1 has `leaseActivities` instead of `leaseIntervals`, a flat `unitSpaceId`/`unitNumberSpace`
 * (the first space) instead of `unitSpaces`, no `moveOutReason` and no application charges.
 * `leaseHistory` and `arTransactions` only when asked for; in resident-friendly mode, charge
 * codes (`chargeCode`, `arCodeName`) by the resident-facing name of their AR code id. The stored record is not changed.
 */
export function renderLease(lease: SimLease, options: LeaseRenderOptions): Tree {
  const out: Tree = {};
  const r1 = options.version === 'r1';
  for (const key of Object.keys(lease) as (keyof SimLease)[]) {
    if (key.startsWith('_')) continue;
    switch (key) {
      case 'leaseIntervals':
        if (!r1) out.leaseIntervals = lease.leaseIntervals;
        break;
      case 'leaseActivities':
        if (r1) out.leaseActivities = lease.leaseActivities;
        break;
      case 'moveOutReason':
        if (!r1) out.moveOutReason = lease.moveOutReason;
        break;
      case 'unitSpaces':
        if (r1) {
          const first = lease.unitSpaces.unitSpace[0];
          if (first) {
            out.unitSpaceId = first.unitSpaceId;
            out.unitNumberSpace = first.unitSpace;
          }
        } else out.unitSpaces = lease.unitSpaces;
        break;
      case 'leaseHistory':
        if (options.includeHistory) out.leaseHistory = lease.leaseHistory;
        break;
      case 'arTransactions':
        if (options.includeAr) out.arTransactions = arFor(lease, options);
        break;
      case 'scheduledCharges':
        out.scheduledCharges = chargesFor(lease, options);
        break;
      default:
        out[key] = lease[key];
    }
  }
  return out;
}
