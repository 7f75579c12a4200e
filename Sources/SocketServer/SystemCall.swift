import Glibc

/// A failed system call: the call's name and `errno`. Never includes peer data.
struct SystemCallError: Error, CustomStringConvertible {
    let call: String
    let errno: Int32

    var description: String {
        "\(call) failed: \(String(cString: strerror(errno))) (errno \(errno))"
    }
}

/// The one place that calls into libc for sockets: retries on `EINTR`, turns -1 into a Swift error.
enum SystemCall {
    /// Runs `body` until it does not fail with `EINTR`; throws `SystemCallError` on other failures.
    @inline(__always)
    static func retrying<T: FixedWidthInteger>(_ call: String, _ body: () -> T) throws -> T {
        while true {
            let result = body()
            if result == -1 {
                let code = errno
                if code == EINTR { continue }
                throw SystemCallError(call: call, errno: code)
            }
            return result
        }
    }

    /// Like `retrying`, but returns nil for `EAGAIN`/`EWOULDBLOCK` (non-blocking socket not ready).
    @inline(__always)
    static func nonBlocking<T: FixedWidthInteger>(_ call: String, _ body: () -> T) throws -> T? {
        while true {
            let result = body()
            if result == -1 {
                let code = errno
                if code == EINTR { continue }
                if code == EAGAIN || code == EWOULDBLOCK { return nil }
                throw SystemCallError(call: call, errno: code)
            }
            return result
        }
    }

    /// Closes a descriptor. A failure here (even `EINTR`) must not be retried on Linux: the
    /// descriptor is gone either way.
    static func close(_ fd: Int32) {
        _ = Glibc.close(fd)
    }

    /// Ignores `SIGPIPE` process-wide: a peer that resets must cost an `EPIPE`, not the process.
    /// Sends also pass `MSG_NOSIGNAL`; this covers any other write path.
    static func ignoreSIGPIPE() {
        _ = signal(SIGPIPE, SIG_IGN)
    }

    /// Raises the soft open-files limit to the hard limit so that thousands of connections fit.
    /// - Returns: the soft limit now in force.
    @discardableResult
    static func raiseOpenFileLimit() -> Int {
        var limit = rlimit()
        let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
        guard getrlimit(resource, &limit) == 0 else { return -1 }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(resource, &raised) == 0 { return Int(clamping: raised.rlim_cur) }
        }
        return Int(clamping: limit.rlim_cur)
    }
}
