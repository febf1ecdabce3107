// Basics: the vocabulary every layer of PackFS shares, with no I/O beyond POSIX files.
//
// Concepts. Threads/: `Lock` (a pthread mutex ThreadSanitizer models), `Condition`, `LockedState`
// (state reached only under its lock), `NativeThread` and `QuietThread` (threads that never take
// a mount's ending signals), `BackgroundWorker`, and `LockTally` for tests that count a path's
// locks. Files/: `PosixFile` and its `SystemError`. Text/: trimming and path helpers,
// `errorText`, `cFormat`, `humanBytes`, `Redaction` (the one place secrets are hidden from text
// that leaves the process), `StandardError`, `URLSyntax`. Geometry/: `Position`, `Bounds`,
// `Geometry`. JSON/: `JSONValue`, its parser and writer. Hash/: `MD5` (libcrypto's).
// Inflate/: one family for every inflate: `Zlib` (compress, gzip, decompress with zlib's
// verdict), `WholeInflate` (libdeflate on a whole buffer), `Inflater` (many values on one thread,
// one buffer), `StreamInflater` (one stream, reporting where it ends), `GzipFastPath` (one gzip
// member in one call). Stored/: `StoredData` (a row's `data` and `compressed`, MapLibre's
// compression rule) and `CacheHeaders`, what the HTTP client produces and the store keeps.
// Retry/: `RetryPolicy`, when and how often a failed request is tried again.
//
// Threading. Values are `Sendable`; the inflaters are one per thread, as each says.
//
// Errors. Each throws its own small error (`Zlib.Failure`, `SystemError`, `JSONValue`'s parse
// error) with one line saying what was wrong; nothing here logs.
