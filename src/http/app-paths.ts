/** Paths of the app's own views that the server hands out (below `/app`, as `Urls.app` makes them). */
export const appPaths = {
  signIn: '/sign-in',
  /** Where a one-time password link leads; the token follows in the fragment. */
  setPassword: '/set-password',
  /** Where a password link is asked for by e-mail (when the server sends mail). */
  forgotPassword: '/forgot-password',
} as const;
