/**
 * Order among siblings (the collections and spaces under one parent). Positions are numbers; a move takes the
 * midpoint of its new neighbours and renumbers the siblings when two positions get too close to split.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../../store/sql/schema.js';
import { setPosition, siblingsOf, type Sibling } from '../../store/sql/spaces.js';
import { InvalidArgument } from '../errors.js';

export interface ContentPointer {
  type: 'space' | 'collection';
  space?: string;
  collection?: string;
}

export interface ContentPosition {
  before?: ContentPointer;
  after?: ContentPointer;
}

function pointerId(pointer: ContentPointer, field: string): string {
  const id = pointer.type === 'space' ? pointer.space : pointer.collection;
  if (!id) throw new InvalidArgument(`${field}.${pointer.type}: is required when type is "${pointer.type}"`);
  return id;
}

/** The position after every current sibling. */
export async function endPosition(db: Kysely<Database>, organizationId: string, parentId: string | null): Promise<number> {
  const siblings = await siblingsOf(db, organizationId, parentId);
  return siblings.length === 0 ? 1 : siblings[siblings.length - 1].position + 1;
}

/** A sibling in an ordered container: a key that names it among its siblings, and its position. */
export interface Ordered {
  key: string;
  position: number;
}

export interface Placement {
  position: number;
  /** When the neighbours were too close to split: the siblings renumbered 1, 2, 3... (write them before `position`). */
  renumbered: Ordered[] | null;
}

/**
 * Where an item goes among `siblings` (in order, the item itself left out): just before or after the sibling whose
 * key is `anchor.key`, or after every sibling when there is no anchor. Null when the anchor is not a sibling.
 * Any container with numeric positions uses it (collections and spaces, site structures).
 */
export function placeAmong(siblings: readonly Ordered[], anchor: { key: string; side: 'before' | 'after' } | undefined): Placement | null {
  const compute = (list: readonly Ordered[]): number | null => {
    if (!anchor) return list.length === 0 ? 1 : list[list.length - 1].position + 1;
    const index = list.findIndex((s) => s.key === anchor.key);
    if (index < 0) return null;
    if (anchor.side === 'before') {
      const prev = list[index - 1];
      return prev ? (prev.position + list[index].position) / 2 : list[index].position - 1;
    }
    const next = list[index + 1];
    return next ? (list[index].position + next.position) / 2 : list[index].position + 1;
  };
  const position = compute(siblings);
  if (position === null) return null;
  if (!siblings.some((s) => s.position === position)) return { position, renumbered: null };
  // Out of room between two neighbours: spread the siblings out and compute again.
  const renumbered = siblings.map((s, i) => ({ key: s.key, position: i + 1 }));
  return { position: compute(renumbered)!, renumbered };
}

/**
 * Where `item` goes under `parentId` for the requested position (the end when none), renumbering the siblings
 * if needed. Throws 400 when the pointer is not a sibling there.
 */
export async function placeAmongSiblings(
  db: Kysely<Database>,
  organizationId: string,
  parentId: string | null,
  item: { kind: 'space' | 'collection'; id: string },
  position: ContentPosition | undefined,
): Promise<number> {
  const siblings = (await siblingsOf(db, organizationId, parentId)).filter((s) => !(s.kind === item.kind && s.id === item.id));
  const pointer = position?.before ?? position?.after;
  const field = position?.before ? 'position.before' : 'position.after';
  const id = pointer ? pointerId(pointer, field) : undefined;
  const placement = placeAmong(
    siblings.map((s) => ({ key: `${s.kind}:${s.id}`, position: s.position })),
    pointer ? { key: `${pointer.type}:${id}`, side: position?.before ? 'before' : 'after' } : undefined,
  );
  if (!placement) throw new InvalidArgument(`${field}: ${pointer!.type} "${id}" is not in the target location`);
  for (const sibling of placement.renumbered ?? []) {
    const [kind, siblingId] = sibling.key.split(':') as [Sibling['kind'], string];
    await setPosition(db, { kind, id: siblingId, position: sibling.position });
  }
  return placement.position;
}

/** Ids of the sibling order under a parent, for telling whether a move changed anything. */
export async function siblingOrder(db: Kysely<Database>, organizationId: string, parentId: string | null): Promise<string> {
  return (await siblingsOf(db, organizationId, parentId)).map((s) => `${s.kind}:${s.id}`).join(',');
}
