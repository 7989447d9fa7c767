/** The middle value of a benchmark's rounds (the upper middle for an even count): machines here are noisy. */
export const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
