import { Type } from 'typebox';

export const SignInProvidersSchema = Type.Object(
  {
    items: Type.Array(
      Type.Object({
        id: Type.String({ description: '"instance" for the instance\'s provider (QUIRE_OIDC_*)' }),
        kind: Type.Literal('oidc'),
        label: Type.String({ description: 'The sign-in button\'s text (public)' }),
        startUrl: Type.String({ description: 'Where the browser goes to sign in with this provider (add next=/app/... to come back there)' }),
      }),
    ),
  },
);

export const StartQuery = Type.Object({
  provider: Type.Optional(Type.String({ maxLength: 200 })),
  next: Type.Optional(Type.String({ maxLength: 2000 })),
});
