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

  /** An app address as a path of this origin (links inside the app's own views: the origin a browser used). */
  appPath(path: string): string {
    return `${new URL(this.base_).pathname.replace(/\/$/, '')}/app${path}`;
  }

  /** An API address as a path of this origin. */
  apiPath(path: string): string {
    return `${new URL(this.base_).pathname.replace(/\/$/, '')}/v1${path}`;
  }
}
