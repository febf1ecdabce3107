// HTTP: the libcurl client that downloads use, below Downloader and above Basics alone.
//
// Concepts. `HTTPClient` runs one libcurl multi handle on a thread of its own (`TransferLoop`);
// a request (`HTTPRequest`: a URL, a byte range, validators) completes once with an
// `HTTPOutcome`, which `AttemptClassifier` alone decides: an answer, an error, or another
// attempt after `RetryPolicy`'s delay (`RetryQueue`). Bodies are decoded off the loop
// (`DecodePool`, `BodyDecoder`: gzip and deflate inflated once and kept as zlib without
// recompressing). `AddressReach` and `AddressScope` decide which addresses a request may
// connect to (docs/design.md §4), hop by hop, redirects included.
//
// Threading. `submit` and `cancel` from any thread; completions on the loop or a decode thread.
//
// Errors. Every failure is an `HTTPError` case naming the URL.
