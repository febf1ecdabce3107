// libcurl's setopt/getinfo functions are variadic, which Swift cannot call. These typed wrappers
// give Swift one entry point per argument type.
#pragma once
#include <curl/curl.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>

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

// The address check (docs/design.md §4): libcurl asks the open-socket callback for every
// connection it opens, with the address it resolved and is about to connect to.
typedef curl_socket_t (*packfs_opensocket_cb)(void *, curlsocktype, struct curl_sockaddr *);
static inline CURLcode packfs_easy_setopt_opensocket(CURL *h, CURLoption o, packfs_opensocket_cb v) { return curl_easy_setopt(h, o, v); }
/// Copies the IP address of `a` into `out` (16 bytes of room) in network order; returns 4, 16, or
/// 0 for any other family (or a truncated address).
static inline int packfs_sockaddr_ip(const struct curl_sockaddr *a, unsigned char *out) {
    if (a->family == AF_INET && a->addrlen >= sizeof(struct sockaddr_in)) {
        memcpy(out, &((const struct sockaddr_in *)(const void *)&a->addr)->sin_addr, 4);
        return 4;
    }
    if (a->family == AF_INET6 && a->addrlen >= sizeof(struct sockaddr_in6)) {
        memcpy(out, &((const struct sockaddr_in6 *)(const void *)&a->addr)->sin6_addr, 16);
        return 16;
    }
    return 0;
}
/// The socket libcurl would have opened itself, close-on-exec.
static inline curl_socket_t packfs_open_socket(const struct curl_sockaddr *a) {
    return socket(a->family, a->socktype | SOCK_CLOEXEC, a->protocol);
}
