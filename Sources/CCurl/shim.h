// libcurl's setopt/getinfo functions are variadic, which Swift cannot call. These typed wrappers
// give Swift one entry point per argument type.
#pragma once
#include <curl/curl.h>

static inline CURLcode packfs_easy_setopt_long(CURL *h, CURLoption o, long v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode packfs_easy_setopt_ptr(CURL *h, CURLoption o, void *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode packfs_easy_setopt_str(CURL *h, CURLoption o, const char *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode packfs_easy_setopt_off(CURL *h, CURLoption o, curl_off_t v) { return curl_easy_setopt(h, o, v); }
typedef size_t (*packfs_write_cb)(char *, size_t, size_t, void *);
static inline CURLcode packfs_easy_setopt_write(CURL *h, CURLoption o, packfs_write_cb v) { return curl_easy_setopt(h, o, v); }
typedef int (*packfs_prereq_cb)(void *, char *, char *, int, int);
static inline CURLcode packfs_easy_setopt_prereq(CURL *h, CURLoption o, packfs_prereq_cb v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode packfs_easy_getinfo_long(CURL *h, CURLINFO i, long *v) { return curl_easy_getinfo(h, i, v); }
static inline CURLcode packfs_easy_getinfo_ptr(CURL *h, CURLINFO i, void *v) { return curl_easy_getinfo(h, i, v); }
static inline CURLcode packfs_easy_getinfo_off(CURL *h, CURLINFO i, curl_off_t *v) { return curl_easy_getinfo(h, i, v); }
static inline CURLMcode packfs_multi_setopt_long(CURLM *m, CURLMoption o, long v) { return curl_multi_setopt(m, o, v); }
