// The API reference: Redoc (the global Redoc, served by this service) renders the page's OpenAPI document.
// Search is off: Redoc runs it in a worker made from a blob: URL, which the page's Content-Security-Policy refuses.
const root = document.getElementById('redoc');
Redoc.init(root.dataset.spec, {
  disableSearch: true,
  hideDownloadButton: false,
  expandResponses: '200',
  theme: { typography: { fontFamily: 'system-ui, sans-serif', headings: { fontFamily: 'system-ui, sans-serif' }, code: { fontFamily: 'ui-monospace, monospace' } } },
}, root, () => { document.body.dataset.ready = 'true'; });
