/** Paths of the app's own views that the server hands out (below `/app`, as `Urls.app` makes them). */
export const appPaths = {
  signIn: '/sign-in',
  /** Where a one-time password link leads; the token follows in the fragment. */
  setPassword: '/set-password',
} as const;
