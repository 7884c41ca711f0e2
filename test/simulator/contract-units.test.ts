/**
 * Contract: getPropertyUnits (area `propertyunits`, source-api.md section 6a) over the seeded
 * data set: JSON and XML, Basic and the gateway, its parameters, the quirks of the others, and
 * every space's status read from the leases of the simulated day.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectedInventory, UNKNOWN_STATUS } from '../../src/simulator/data/index.js';
import { startSimulator, type AdvanceSummary, type Simulator } from '../../src/simulator/index.js';
import { asList, call, GATEWAY, PASSWORD, USER, type CallOptions, type CallReply } from './support.js';

let sim: Simulator<AdvanceSummary>;
beforeAll(async () => {
  sim = await startSimulator({
    username: USER,
    password: PASSWORD,
    ...GATEWAY,
    rateLimit: 'off',
    seed: 11,
    scale: 'small',
    today: '2024-06-15',
  });
});
afterAll(async () => {
  await sim?.close();
});

const ids = () => sim.dataset.properties.map((property) => property.PropertyID);
const unitsCall = (params: Record<string, string> = {}): CallOptions => ({
  method: 'getPropertyUnits',
  version: 'r1',
  params: { propertyIds: ids().join(','), includeDisabledUnits: '1', ...params },
});

function propertiesOf(reply: CallReply): any[] {
  const result = reply.body.response.result;
  return typeof result === 'string' ? [] : asList(result.properties.property);
}
const spacesOf = (property: any) =>
  asList(property.units?.unit).flatMap((unit) => asList(unit.unitSpaces?.unitSpace));

describe('getPropertyUnits', () => {
  it('lists every unit and space of the properties asked for, as the truth has them, in JSON and XML', async () => {
    const json = await call(sim, unitsCall());
    expect(json.status).toBe(200);
    const xml = await call(sim, { ...unitsCall(), format: 'xml' });
    expect(xml.headers.get('content-type')).toMatch(/xml/);
    const truth = expectedInventory(sim.dataset);
    for (const reply of [json, xml]) {
      const properties = propertiesOf(reply);
      expect(properties.map((property) => Number(property.propertyId))).toEqual(ids());
      for (const [index, property] of properties.entries()) {
        expect(asList(property.units.unit)).toHaveLength(truth[index].units);
        const spaces = spacesOf(property);
        expect(spaces.map((space) => Number(space.unitSpaceId))).toEqual(
          truth[index].spaces.map((space) => space.unitSpaceId),
        );
        expect(spaces.map((space) => space.availabilityStatus)).toEqual(
          truth[index].spaces.map((s) => s.status),
        );
      }
    }
  });

  it('is served alike on the gateway', async () => {
    const basic = await call(sim, unitsCall());
    const gateway = await call(sim, { ...unitsCall(), gateway: GATEWAY });
    expect(gateway.status).toBe(200);
    expect(gateway.body).toEqual(basic.body);
  });

  it('holds each space as its leases say on the day: occupied, on notice, pre-leased or vacant', async () => {
    const today = sim.dataset.today;
    const truth = expectedInventory(sim.dataset).flatMap((property) => property.spaces);
    for (const space of truth) {
      const leases = sim.dataset.leases.filter((lease) => lease.unitId === space.unitId);
      const current = leases.find((lease) => lease._status === 4);
      const notice = leases.find((lease) => lease._status === 5);
      const future = leases.find((lease) => lease._status === 3);
      if (current) expect(space.state).toBe('occupied');
      else if (notice) expect(space.state).toBe('notice');
      else expect(['vacant', 'down', 'model']).toContain(space.state);
      expect(space.preleased).toBe(future !== undefined);
      if (space.state === 'vacant' && !space.ready) expect(space.makeReadyDay).toBeDefined();
    }
    expect(truth.some((space) => space.state === 'occupied')).toBe(true);
    expect(truth.some((space) => space.otherIncome)).toBe(true);
    expect(today).toBe('2024-06-15');
  });

  it('sends the quirks of the others: numbers as strings on some properties, single spaces as objects, optional fields left out', async () => {
    const properties = propertiesOf(await call(sim, unitsCall()));
    const units = properties.flatMap((property) => asList(property.units.unit));
    expect(units.some((unit) => typeof unit.squareFeet === 'string')).toBe(true);
    expect(units.some((unit) => typeof unit.squareFeet === 'number')).toBe(true);
    expect(units.some((unit) => !Array.isArray(unit.unitSpaces.unitSpace))).toBe(true);
    expect(units.some((unit) => unit.unitAddress === undefined)).toBe(true);
    const spaces = properties.flatMap(spacesOf);
    expect(spaces.some((space) => space.availableDate === undefined)).toBe(true);
    expect(typeof units[0].id).toBe('number');
  });

  it('leaves down units out unless includeDisabledUnits, and keeps only what is available with availableUnitsOnly', async () => {
    const all = propertiesOf(await call(sim, unitsCall())).flatMap(spacesOf);
    const enabled = propertiesOf(await call(sim, unitsCall({ includeDisabledUnits: '0' }))).flatMap(spacesOf);
    const down = expectedInventory(sim.dataset)
      .flatMap((property) => property.spaces)
      .filter((space) => space.state === 'down');
    expect(enabled).toHaveLength(all.length - down.length);
    const available = propertiesOf(await call(sim, unitsCall({ availableUnitsOnly: '1' }))).flatMap(spacesOf);
    expect(available.length).toBeLessThan(all.length);
    for (const space of available) expect(space.availabilityStatus).not.toMatch(/Occupied|Rented$|Rented /);
  });

  it('refuses a call without propertyIds, and a property it does not know', async () => {
    const missing = await call(sim, { method: 'getPropertyUnits', params: {} });
    expect(missing.body.response.error.code).toBe(400);
    expect(missing.body.response.error.message).toMatch(/propertyIds/);
    const unknown = await call(sim, { method: 'getPropertyUnits', params: { propertyIds: '999999' } });
    expect(unknown.body.response.error.code).toBe(302);
  });

  it('moves with the clock: make-ready after move-outs, rents by month, a new building, a unit down and back', () => {
    const before = expectedInventory(sim.dataset);
    const spacesBefore = new Map(before.flatMap((p) => p.spaces).map((space) => [space.unitSpaceId, space]));
    const seen = { notReady: 0, rentMoved: 0, down: 0, unknown: 0 };
    for (let day = 0; day < 60; day++) {
      sim.advance(1);
      for (const space of expectedInventory(sim.dataset).flatMap((p) => p.spaces)) {
        if (space.state === 'vacant' && !space.ready) seen.notReady++;
        if (space.state === 'down') seen.down++;
        if (space.status === UNKNOWN_STATUS) seen.unknown++;
        const earlier = spacesBefore.get(space.unitSpaceId);
        if (earlier && earlier.rentCents !== space.rentCents) seen.rentMoved++;
      }
    }
    const after = expectedInventory(sim.dataset);
    expect(after.reduce((sum, p) => sum + p.units, 0)).toBeGreaterThan(
      before.reduce((sum, p) => sum + p.units, 0),
    );
    expect(seen.notReady).toBeGreaterThan(0);
    expect(seen.rentMoved).toBeGreaterThan(0);
    expect(seen.down).toBeGreaterThan(0);
  });
});
