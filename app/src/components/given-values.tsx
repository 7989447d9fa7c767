/** Values this server gives an identity provider (redirect URIs, entity IDs...), each shown as it is to copy. */
export function GiveToIdentityProvider({ values }: { values: Array<[string, string]> }) {
  return (
    <dl class="given">
      {values.map(([label, value]) => (
        <div key={label}>
          <dt>{label}</dt>
          <dd>
            <code>{value}</code>
          </dd>
        </div>
      ))}
    </dl>
  );
}
