import { layout, type SignedInAccount } from '../layout.js';

export function notFoundPage(account: SignedInAccount | undefined): string {
  return layout({
    title: 'Page not found',
    account,
    body: `<div class="card narrow">
  <h1>Page not found</h1>
  <p>There is no page at this address. It may have moved, or the link may be mistyped.</p>
  <p><a class="btn btn-primary" href="/app">Go to the dashboard</a></p>
</div>`,
  });
}

export function errorPage(): string {
  return layout({
    title: 'Something went wrong',
    body: `<div class="card narrow">
  <h1>Something went wrong</h1>
  <p>We could not show this page. Try again in a moment.</p>
  <p><a class="btn btn-primary" href="/app">Go to the dashboard</a></p>
</div>`,
  });
}
