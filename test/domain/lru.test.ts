import { describe, expect, it } from 'vitest';
import { WeightedLru } from '../../src/domain/lru.js';

describe('WeightedLru', () => {
  it('keeps the total weight within its bound, evicting entries not read since they were stored', () => {
    const lru = new WeightedLru<string, number>(3);
    lru.set('a', 1);
    lru.set('b', 2);
    lru.set('c', 3);
    expect(lru.get('a')).toBe(1);
    lru.set('d', 4);
    // 'a' was read, so 'b' (the oldest unread) goes.
    expect(lru.get('b')).toBeUndefined();
    expect([lru.get('a'), lru.get('c'), lru.get('d')]).toEqual([1, 3, 4]);
    expect(lru.size).toBe(3);
    expect(lru.weight).toBe(3);
  });

  it('counts weights, refuses what is heavier than the bound, and forgets deleted entries', () => {
    const lru = new WeightedLru<string, string>(10);
    lru.set('big', 'x', 6);
    lru.set('small', 'y', 4);
    lru.set('huge', 'z', 11);
    expect(lru.get('huge')).toBeUndefined();
    lru.set('more', 'w', 3);
    expect(lru.get('big')).toBeUndefined();
    expect(lru.get('small')).toBe('y');
    lru.delete('small');
    expect(lru.get('small')).toBeUndefined();
    lru.set('again', 'v', 7);
    expect(lru.get('more')).toBe('w');
  });

  it('replaces the value of a key that is set again', () => {
    const lru = new WeightedLru<string, number>(2);
    lru.set('a', 1);
    lru.set('a', 2);
    expect(lru.get('a')).toBe(2);
    expect(lru.size).toBe(1);
  });

  it('counts a value that grew, evicting others to stay within its weight', () => {
    const lru = new WeightedLru<string, string>(10);
    lru.set('a', 'x', 4);
    lru.set('b', 'y', 4);
    lru.grow('b', 3);
    expect(lru.get('a')).toBeUndefined();
    expect(lru.get('b')).toBe('y');
    lru.set('c', 'z', 3);
    expect(lru.get('b')).toBe('y');
    lru.grow('missing', 100);
    expect(lru.size).toBe(2);
    lru.grow('c', 8);
    expect(lru.get('c')).toBeUndefined();
  });

  it('evicts the entries it spared before the one being stored, when every older entry was read', () => {
    // A big revision read by many requests and its child, both read: storing the grandchild must evict the big
    // one (spared once, read no more), not the grandchild itself.
    const lru = new WeightedLru<string, string>(10);
    lru.set('big', 'x', 6);
    lru.set('child', 'y', 2);
    lru.get('big');
    lru.get('child');
    lru.set('grandchild', 'z', 3);
    expect(lru.get('grandchild')).toBe('z');
    expect(lru.get('big')).toBeUndefined();
    expect(lru.get('child')).toBe('y');
    expect(lru.weight).toBe(5);
  });
});
