/** Builds the `urls` members of resources from the public base URL. */
export class Urls {
  constructor(private readonly base: string) {}

  api(path: string): string {
    return `${this.base}/v1${path}`;
  }

  app(path: string): string {
    return `${this.base}/app${path}`;
  }
}
