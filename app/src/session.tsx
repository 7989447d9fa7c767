/** Who is signed in: read once when the app starts (GET /v1/user/session), set by signing in, cleared by signing out. */
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { SessionInfo } from './types.js';

export interface SessionState {
  /** undefined while the app asks; null when nobody is signed in. */
  current: SessionInfo | null | undefined;
  signedIn(info: SessionInfo): void;
  signedOut(): void;
}

export const SessionContext = createContext<SessionState>({ current: undefined, signedIn: () => {}, signedOut: () => {} });

export const useSession = () => useContext(SessionContext);
