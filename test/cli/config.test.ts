/** Settings read from the environment (config/index.ts): defaults, and values refused with the variable's name. */
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../config/index.js';

describe('QUIRE_SEARCH_RANKINGS_MB', () => {
  it('is 16 MB by default, and 0 keeps no ranking', () => {
    expect(loadConfig({}).searchRankingsBytes).toBe(16 * 1024 * 1024);
    expect(loadConfig({ QUIRE_SEARCH_RANKINGS_MB: '0' }).searchRankingsBytes).toBe(0);
    expect(loadConfig({ QUIRE_SEARCH_RANKINGS_MB: '64' }).searchRankingsBytes).toBe(64 * 1024 * 1024);
  });

  it.each(['-1', '2.5', 'lots'])('refuses %s, naming the variable', (raw) => {
    expect(() => loadConfig({ QUIRE_SEARCH_RANKINGS_MB: raw })).toThrow(/^QUIRE_SEARCH_RANKINGS_MB: must be an integer of 0 or more/);
  });
});

describe('QUIRE_HEAP_GROWTH_PERCENT', () => {
  it('is 25 by default, and 0 leaves V8 its own factor', () => {
    expect(loadConfig({}).heapGrowthPercent).toBe(25);
    expect(loadConfig({ QUIRE_HEAP_GROWTH_PERCENT: '0' }).heapGrowthPercent).toBe(0);
    expect(loadConfig({ QUIRE_HEAP_GROWTH_PERCENT: '60' }).heapGrowthPercent).toBe(60);
  });

  it.each(['-5', '1.5', 'fast'])('refuses %s, naming the variable', (raw) => {
    expect(() => loadConfig({ QUIRE_HEAP_GROWTH_PERCENT: raw })).toThrow(ConfigError);
    expect(() => loadConfig({ QUIRE_HEAP_GROWTH_PERCENT: raw })).toThrow(/^QUIRE_HEAP_GROWTH_PERCENT: must be an integer of 0 or more/);
  });
});
