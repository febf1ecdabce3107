// Downloader: a region definition becomes a complete pack.
//
// Pipeline. Region file -> `RegionDefinition` (PackStore) -> the style read by StyleModel ->
// `DownloadPlan` (tile cover per source and zoom) -> `HTTPClient` -> batched writes (`BatchWriter`),
// with progress, resume, refresh, convergence to a changed definition, and limits. `URLPolicy`
// turns a stored URL into the one requested (`mapbox://`, `--rewrite`, `--allow-host`).
// `Estimate` is the plan without the download: exact counts, bytes from the database or samples.
//
// Threading. `PackDownload.run()` blocks its caller; requests complete on the HTTP loop thread or
// a decoding thread; the writer commits on its own; `suspend()` may come from any thread.
//
// Errors. A bad document is a `StyleError`, a failed request an `HTTPError`, the rest (URL policy,
// archive, limits, writes) a `DownloadError` naming the URL or limit. A run ends with the pack in
// `error` and the error's one line, nothing stored lost.
