// ObjectStorage: files to S3 and S3-compatible object stores (MinIO, R2, moto), for `packfs export DB NAME
// s3://bucket/key.pmtiles`.
//
// - `ObjectLocation`: an `s3://bucket/key` URL, checked before anything is exported.
// - `S3Configuration`: credentials, region and endpoint, from the AWS CLI's environment variables or the caller's
//   options; path-style URLs under an endpoint, else AWS's virtual-hosted ones.
// - `MultipartUpload`: one file to one object, part by part, each part retried on its own, the upload aborted when it
//   cannot finish so that no partial object or stored parts remain.
//
// Signing: libcurl signs each request (CURLOPT_AWS_SIGV4). libcurl 7.88 signs the path and query exactly as written and
// takes the payload hash from the `x-amz-content-sha256` header, so URLs are written in SigV4's canonical form
// (`S3Encoding`, query keys in order, `uploads=`) and every request carries its payload's SHA-256, which S3 checks
// against the bytes it got.
//
// Threading: none: an upload runs on the caller's thread, one request at a time over one kept-alive `S3Connection`.
//
// Errors: `ObjectStorageError`, naming the object or the step and why in libcurl's or S3's words. No FUSE, no database.
