import { Type } from 'typebox';
import { UserSchema } from '../../schemas.js';
import { MAX_PASSWORD_LENGTH } from '../../../domain/identity/passwords.js';

const Password = (description: string) => Type.String({ minLength: 1, maxLength: MAX_PASSWORD_LENGTH, description });

export const SignInBody = Type.Object(
  {
    email: Type.String({ minLength: 1, maxLength: 320 }),
    password: Password('The account\'s password.'),
  },
  { additionalProperties: false },
);

export const SetPasswordBody = Type.Object(
  {
    token: Type.String({ minLength: 1, maxLength: 200, description: 'The token of a one-time password link (`quire admin reset-password`).' }),
    password: Password('The new password: 10 to 256 characters.'),
  },
  { additionalProperties: false },
);

export const PasswordResetBody = Type.Object(
  { email: Type.String({ minLength: 1, maxLength: 320, description: 'The address of the account whose password to set.' }) },
  { additionalProperties: false },
);

export const PasswordResetRequestedSchema = Type.Object({
  email: Type.String({ description: 'The address, as the server reads it (trimmed, lower case).' }),
  message: Type.String({ description: 'The same whether or not an account has the address.' }),
});

export const ChangePasswordBody = Type.Object(
  {
    currentPassword: Password('The password the account has now.'),
    newPassword: Password('The new password: 10 to 256 characters.'),
  },
  { additionalProperties: false },
);

export const SessionSchema = Type.Object({
  object: Type.Literal('session'),
  id: Type.String(),
  method: Type.Union([Type.Literal('password'), Type.Literal('oidc'), Type.Literal('saml')]),
  userAgent: Type.Optional(Type.String()),
  ip: Type.Optional(Type.String()),
  createdAt: Type.String({ format: 'date-time' }),
  lastSeenAt: Type.String({ format: 'date-time' }),
  expiresAt: Type.String({ format: 'date-time' }),
  /** Whether this is the session of the request that lists it. */
  current: Type.Boolean(),
});

export const SignedInSchema = Type.Object({
  user: UserSchema,
  session: SessionSchema,
  csrfToken: Type.String({ description: 'What every write made with the session cookie carries in `X-CSRF-Token`.' }),
});

export const SessionsSchema = Type.Object({ items: Type.Array(SessionSchema) });

export const SessionParams = Type.Object({ sessionId: Type.String({ minLength: 1, maxLength: 100 }) });

export const SignedOutSchema = Type.Object({ ended: Type.Number({ description: 'How many sessions ended.' }) });
