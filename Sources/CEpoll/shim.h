#ifndef POSTERN_CEPOLL_SHIM_H
#define POSTERN_CEPOLL_SHIM_H
// Linux readiness and descriptor calls that Glibc's Swift module does not export: epoll, eventfd and
// accept4 (and prctl, variadic, for a thread's name). Swift never sees `struct epoll_event` (packed on x86_64, naturally aligned elsewhere): the
// wrappers below take and return plain fields, so no layout is written by hand.
#include <errno.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/socket.h>

/// One ready descriptor as reported by `postern_epoll_wait`.
typedef struct {
    int32_t fd;
    uint32_t events;
} postern_epoll_ready;

static const uint32_t POSTERN_EPOLLIN = EPOLLIN;
static const uint32_t POSTERN_EPOLLOUT = EPOLLOUT;
static const uint32_t POSTERN_EPOLLRDHUP = EPOLLRDHUP;
static const uint32_t POSTERN_EPOLLERR = EPOLLERR;
static const uint32_t POSTERN_EPOLLHUP = EPOLLHUP;
static const uint32_t POSTERN_EPOLLEXCLUSIVE = EPOLLEXCLUSIVE;

static inline int postern_epoll_create(void) { return epoll_create1(EPOLL_CLOEXEC); }

/// `op` is 0 to add, 1 to modify, 2 to delete.
static inline int postern_epoll_ctl(int epfd, int op, int fd, uint32_t events) {
    static const int ops[3] = {EPOLL_CTL_ADD, EPOLL_CTL_MOD, EPOLL_CTL_DEL};
    struct epoll_event event = {0};
    event.events = events;
    event.data.fd = fd;
    return epoll_ctl(epfd, ops[op % 3], fd, &event);
}

/// Waits up to `timeout_ms` (-1: forever) and copies at most `capacity` (at most 256) ready descriptors.
static inline int postern_epoll_wait(int epfd, postern_epoll_ready *out, int capacity, int timeout_ms) {
    struct epoll_event events[256];
    if (capacity > 256) capacity = 256;
    int count = epoll_wait(epfd, events, capacity, timeout_ms);
    for (int i = 0; i < count; i++) {
        out[i].fd = events[i].data.fd;
        out[i].events = events[i].events;
    }
    return count;
}

static inline int postern_eventfd(void) { return eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK); }

/// accept4 with SOCK_NONBLOCK | SOCK_CLOEXEC: the accepted socket needs no further fcntl.
static inline int postern_accept(int fd, struct sockaddr *address, socklen_t *length) {
    return accept4(fd, address, length, SOCK_NONBLOCK | SOCK_CLOEXEC);
}

/// Names the calling thread as `top -H`, `perf` and `/proc/.../comm` show it (the kernel keeps 15 bytes).
static inline int postern_name_this_thread(const char *name) { return prctl(PR_SET_NAME, name, 0, 0, 0); }
#endif
