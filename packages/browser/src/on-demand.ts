/**
 * What a BrowserPreview call runs (the loopback file server over node:http, the browser launch,
 * the page run), loaded on the tool's first call: a host that lists its tools with a browser
 * installed never compiles them. The one lazy boundary of this package.
 */
export const onDemand = {
  call: () => import("./preview-call.js"),
};
