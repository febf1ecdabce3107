// Downloader: a region definition becomes a complete pack.
//
// Pipeline. Region file -> `RegionDefinition` (PackStore) -> the style read by StyleModel (the
// resources it names, its tiled sources once their TileJSON is fetched) -> `DownloadPlan` (tile
// cover per source and zoom) -> the HTTP target's libcurl client (`HTTPClient`) -> batched writes into the
// offline database (`BatchWriter`), with progress, resume, refresh, convergence to a changed
// definition, and limits. `URLPolicy` turns a stored URL into the one requested (`mapbox://`
// expansion, `--rewrite`, `--allow-host`). `Estimate` is the plan without the download: exact
// counts, and bytes from what the database holds or a handful of server samples; a download
// records one (from the database only) when it plans the pack.
//
// Threading. `PackDownload.run()` blocks its caller; requests complete on the HTTP loop thread or
// a decoding thread; the writer commits on its own. `suspend()` may come from any thread: requests
// in flight are cancelled and the run returns without waiting for any answer.
//
// Errors. What is wrong in a document is a `StyleError`; a URL the client refuses or a request
// that failed is an `HTTPError`; the rest (the URL policy, an archive, a limit reached, a write)
// is a `DownloadError` case naming the URL or the limit. An `HTTPOutcome` is a `Result`: `AttemptClassifier` alone
// decides which statuses are answers and which are errors. A run ends with the pack in `error`
// and the error's one line, nothing stored lost.
