// OpenSSL's libcrypto, for the digests PackFS needs: MD5 (martin's agg_tiles_hash) and SHA-256
// (S3's payload hash). libcurl already loads libcrypto, so this adds no library to the process.
//
// The one-call-per-step digest functions (MD5_Init/Update/Final, SHA256_...) keep their state in a
// plain struct: a Swift value holding it copies the hash with the value, and nothing is allocated
// that could fail. OpenSSL 3 marks them deprecated in favour of EVP, whose contexts are heap objects;
// the declarations are taken without that mark.
#pragma once
#define OPENSSL_SUPPRESS_DEPRECATED 1
#include <openssl/md5.h>
#include <openssl/sha.h>
