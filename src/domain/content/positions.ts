/**
 * Order among siblings (the collections and spaces under one parent). Positions are numbers; a move takes the
 * midpoint of its new neighbours and renumbers the siblings when two positions get too close to split.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../../store/sql/schema.js';
import { setPosition, siblingsOf, type Sibling } from '../../store/sql/content.js';
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
  let siblings = (await siblingsOf(db, organizationId, parentId)).filter((s) => !(s.kind === item.kind && s.id === item.id));
  const compute = (list: Sibling[]): number => {
    if (!position || (!position.before && !position.after)) return list.length === 0 ? 1 : list[list.length - 1].position + 1;
    const field = position.before ? 'position.before' : 'position.after';
    const pointer = (position.before ?? position.after)!;
    const id = pointerId(pointer, field);
    const index = list.findIndex((s) => s.kind === pointer.type && s.id === id);
    if (index < 0) throw new InvalidArgument(`${field}: ${pointer.type} "${id}" is not in the target location`);
    if (position.before) {
      const prev = list[index - 1];
      return prev ? (prev.position + list[index].position) / 2 : list[index].position - 1;
    }
    const next = list[index + 1];
    return next ? (list[index].position + next.position) / 2 : list[index].position + 1;
  };
  let result = compute(siblings);
  if (siblings.some((s) => s.position === result)) {
    // Out of room between two neighbours: spread the siblings out and compute again.
    siblings = siblings.map((s, i) => ({ ...s, position: i + 1 }));
    for (const sibling of siblings) await setPosition(db, sibling);
    result = compute(siblings);
  }
  return result;
}

/** Ids of the sibling order under a parent, for telling whether a move changed anything. */
export async function siblingOrder(db: Kysely<Database>, organizationId: string, parentId: string | null): Promise<string> {
  return (await siblingsOf(db, organizationId, parentId)).map((s) => `${s.kind}:${s.id}`).join(',');
}
