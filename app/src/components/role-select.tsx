import { ROLES, type Role } from '../../../src/domain/roles.js';

/** What each organization role lets a member do, as the select says it. */
const ROLE_LABELS: Record<Role, string> = {
  admin: 'Admin: everything, members and settings too',
  create: 'Create: make spaces and collections',
  review: 'Review: review and merge change requests',
  edit: 'Edit: write content',
  comment: 'Comment: read and comment',
  read: 'Read: read content',
};

/**
 * A role, or none (a guest, who sees only what is shared with them); the value '' stands for none. With `onChange` it
 * is controlled (it shows `value`); without, `value` is only where it starts, marked on its option: a controlled
 * select inside a form would be set back to `value` each time the view renders again (a list below it loading), and
 * the form would send a role the reader did not choose.
 */
export function RoleSelect({ id, name = 'role', value, label, onChange, guest = 'Guest: only what is shared with them' }: {
  id: string;
  name?: string;
  value: Role | null;
  label?: string;
  onChange?: (role: Role | null) => void;
  guest?: string;
}) {
  return (
    <select
      id={id}
      name={name}
      aria-label={label}
      value={onChange ? (value ?? '') : undefined}
      onChange={onChange && ((event) => onChange(roleOf((event.currentTarget as HTMLSelectElement).value)))}
    >
      {ROLES.map((role) => (
        <option key={role} value={role} selected={onChange ? undefined : role === value}>
          {ROLE_LABELS[role]}
        </option>
      ))}
      <option value="" selected={onChange ? undefined : value === null}>
        {guest}
      </option>
    </select>
  );
}

/** A select's value as a role: '' is none. */
export function roleOf(value: string | undefined): Role | null {
  return (ROLES as readonly string[]).includes(value ?? '') ? (value as Role) : null;
}

export const roleName = (role: Role | null) => role ?? 'guest';
