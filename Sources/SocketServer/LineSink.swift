import Glibc

/// Where an event loop's gathered lines (the access log) go: one call per flush, with whole lines.
public protocol LineSink: Sendable {
    /// Writes `bytes` (one or more complete lines). Called on a loop thread; must not block for long.
    func write(_ bytes: UnsafeRawBufferPointer)
}

/// A `LineSink` that writes to a file descriptor (standard error by default) with `write(2)`,
/// retrying on `EINTR` and after partial writes. A failed write drops the rest of that batch.
public struct FileDescriptorSink: LineSink {
    /// The descriptor written to.
    public let fd: Int32

    /// A sink for `fd`; 2 is standard error.
    public init(fd: Int32 = 2) {
        self.fd = fd
    }

    public func write(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress else { return }
        var offset = 0
        while offset < bytes.count {
            let written = Glibc.write(fd, base + offset, bytes.count - offset)
            if written < 0 && errno == EINTR { continue }
            if written <= 0 { return }
            offset += written
        }
    }
}
