/**
 * The files a change request adds, changes and removes, each with its download at the base and at the head (the
 * URLs getChangeRequestChanges hands out: a removed or replaced file's is its blob at the base); images shown side by
 * side, before and after.
 */

/** The file changes of getChangeRequestChanges. */
export interface FileChangeSummary {
  type: string;
  file?: { id: string; name: string; contentType?: string; downloadURL: string };
  attributes?: { downloadURL?: { before?: string; after?: string } };
}

const WHAT: Record<string, string> = { file_created: 'Added', file_edited: 'Changed', file_deleted: 'Removed' };

/** A URL the API handed out, as a path of this origin: the session's cookie goes with it, whatever host it named. */
const ownPath = (url: string) => {
  const parsed = new URL(url, location.href);
  return `${parsed.pathname}${parsed.search}`;
};

function Side({ label, name, url, image }: { label: string; name: string; url?: string; image: boolean }) {
  return (
    <figure class={`file-side file-${label.toLowerCase()}`}>
      <figcaption>{label}</figcaption>
      {url === undefined ? (
        <p class="muted">No file</p>
      ) : image ? (
        <a href={ownPath(url)}>
          <img src={ownPath(url)} alt={`${name}, ${label.toLowerCase()}`} loading="lazy" />
        </a>
      ) : (
        <a href={ownPath(url)}>
          Download <span class="visually-hidden">{name} </span>({label.toLowerCase()})
        </a>
      )}
    </figure>
  );
}

export function ChangedFiles({ changes }: { changes: FileChangeSummary[] }) {
  const files = changes.filter((change) => change.file && change.type in WHAT);
  if (files.length === 0) return null;
  return (
    <section aria-labelledby="files-title">
      <h2 id="files-title">Files</h2>
      <ul class="changed-files">
        {files.map((change) => {
          const file = change.file!;
          const image = (file.contentType ?? '').startsWith('image/');
          const before = change.type === 'file_deleted' ? file.downloadURL : change.type === 'file_edited' ? (change.attributes?.downloadURL?.before ?? file.downloadURL) : undefined;
          const after = change.type === 'file_deleted' ? undefined : change.type === 'file_edited' ? (change.attributes?.downloadURL?.after ?? file.downloadURL) : file.downloadURL;
          return (
            <li key={file.id}>
              <p>
                <span class={`change change-${change.type}`}>{WHAT[change.type]}</span> {file.name}
              </p>
              <div class="diff-sides">
                <Side label="Before" name={file.name} url={before} image={image} />
                <Side label="After" name={file.name} url={after} image={image} />
              </div>
            </li>
          );
        })}
      </ul>
    </section>
  );
}
