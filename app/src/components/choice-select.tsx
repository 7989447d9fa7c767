/**
 * A select among fixed choices (value, label). Where it starts is marked on its option, not as the select's value:
 * see RoleSelect (a controlled select is reset to its value on every render).
 */
export function ChoiceSelect({ id, name, choices, value }: { id: string; name: string; choices: Array<[string, string]>; value: string }) {
  return (
    <select id={id} name={name}>
      {choices.map(([choice, label]) => (
        <option key={choice} value={choice} selected={choice === value}>
          {label}
        </option>
      ))}
    </select>
  );
}
