/** The middle value of a benchmark's rounds (the upper middle for an even count): machines here are noisy. */
export const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** Rounds in ms as a bench prints them: their median, then each round in the order it ran (`64 ms (71, 64, 60)`). */
export const msWithRounds = (values: number[]): string => `${median(values).toFixed(0)} ms (${values.map((value) => value.toFixed(0)).join(', ')})`;
