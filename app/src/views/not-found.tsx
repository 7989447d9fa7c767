import { appHref } from '../api.js';
import { Layout } from '../components/layout.js';

export function NotFound() {
  return (
    <Layout title="Not found">
      <h1>Nothing here</h1>
      <p>
        This address leads nowhere in Quire. <a href={appHref('/')}>Go to your organizations</a>.
      </p>
    </Layout>
  );
}
