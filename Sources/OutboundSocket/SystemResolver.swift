import Dispatch
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Resolves a host name once with the system's `getaddrinfo`, bounded by the fetch deadline: the command line's own
/// client (`postern agent`), which runs on the operator's machine. The server resolves through its configured resolver
/// instead (``HostResolver``; `scripts/check-imports` keeps this one out of the rest).
///
/// `getaddrinfo` cannot be cancelled, so it runs on a helper thread while the caller waits at most
/// until the deadline; a lookup that outlives its caller finishes in the background and is dropped.
/// At most `maxOutstanding` such lookups exist at once, so a stuck resolver cannot pile up threads.
public final class SystemResolver: HostResolver {
    private let outstanding = LockedCounter()
    private let maxOutstanding: Int

    /// - Parameter maxOutstanding: how many lookups may be in flight at once (``SocketError/overloaded`` beyond).
    public init(maxOutstanding: Int) {
        self.maxOutstanding = maxOutstanding
    }

    /// Every distinct address `name` resolves to, in resolver order.
    /// - Throws: ``SocketError/resolutionFailed``, ``SocketError/timedOut`` or ``SocketError/overloaded``.
    public func resolve(_ name: String, deadline: Deadline) throws(SocketError) -> [RemoteAddress] {
        guard outstanding.incrementIfBelow(maxOutstanding) else { throw .overloaded }
        let box = ResultBox()
        let semaphore = DispatchSemaphore(value: 0)
        let counter = outstanding
        Thread.detachNewThread {
            let addresses = SystemResolver.lookup(name)
            box.value.withLock { $0 = addresses }
            counter.decrement()
            semaphore.signal()
        }
        let timeout = DispatchTime.now() + .milliseconds(Int(deadline.remainingMilliseconds))
        guard semaphore.wait(timeout: timeout) == .success, let addresses = box.value.withLock({ $0 }) else {
            throw .timedOut
        }
        guard !addresses.isEmpty else { throw .resolutionFailed }
        return addresses
    }

    private static func lookup(_ name: String) -> [RemoteAddress] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Glibc)
            hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
            hints.ai_socktype = SOCK_STREAM
        #endif
        var list: UnsafeMutablePointer<addrinfo>? = nil
        guard getaddrinfo(name, nil, &hints, &list) == 0, let first = list else { return [] }
        defer { freeaddrinfo(first) }
        var result: [RemoteAddress] = []
        var cursor: UnsafeMutablePointer<addrinfo>? = first
        while let entry = cursor {
            if let sa = entry.pointee.ai_addr, let address = RemoteAddress(socketAddress: sa),
                !result.contains(address)
            {
                result.append(address)
            }
            cursor = entry.pointee.ai_next
        }
        return result
    }
}

/// A lookup result handed from the helper thread to the waiting caller (a class: the thread's
/// closure cannot capture a `Mutex` itself).
private final class ResultBox: Sendable {
    let value = Mutex<[RemoteAddress]?>(nil)
}

/// A counter shared between threads.
final class LockedCounter: Sendable {
    private let count = Mutex(0)

    /// Increments and returns true when the count was below `limit`; otherwise leaves it and returns false.
    func incrementIfBelow(_ limit: Int) -> Bool {
        count.withLock { count in
            guard count < limit else { return false }
            count += 1
            return true
        }
    }

    /// Increments unconditionally.
    func increment() { count.withLock { $0 += 1 } }

    func decrement() { count.withLock { $0 -= 1 } }

    var value: Int { count.withLock { $0 } }
}
