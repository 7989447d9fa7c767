/** Builds the `urls` members of resources from the public base URL. */
export class Urls {
  constructor(private readonly base_: string) {}

  api(path: string): string {
    return `${this.base_}/v1${path}`;
  }

  /** A URL outside the API (git, signed downloads). */
  base(path: string): string {
    return `${this.base_}${path}`;
  }

  app(path: string): string {
    return `${this.base_}/app${path}`;
  }
}
