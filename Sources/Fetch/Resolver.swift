import Dispatch
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Resolves a host name once with `getaddrinfo`, bounded by the fetch deadline.
///
/// `getaddrinfo` cannot be cancelled, so it runs on a helper thread while the caller waits at most
/// until the deadline; a lookup that outlives its caller finishes in the background and is dropped.
/// At most `maxOutstanding` such lookups exist at once, so a stuck resolver cannot pile up threads.
final class Resolver: Sendable {
    private let outstanding = LockedCounter()
    private let maxOutstanding: Int

    init(maxOutstanding: Int) {
        self.maxOutstanding = maxOutstanding
    }

    /// Every distinct address `name` resolves to, in resolver order.
    /// - Throws: ``FetchError/resolutionFailed``, ``FetchError/timedOut`` or ``FetchError/overloaded``.
    func resolve(_ name: String, deadline: Deadline) throws(FetchError) -> [IPAddress] {
        guard outstanding.incrementIfBelow(maxOutstanding) else { throw .overloaded }
        let box = ResultBox()
        let semaphore = DispatchSemaphore(value: 0)
        let counter = outstanding
        Thread.detachNewThread {
            box.set(Resolver.lookup(name))
            counter.decrement()
            semaphore.signal()
        }
        let timeout = DispatchTime.now() + .milliseconds(Int(deadline.remainingMilliseconds))
        guard semaphore.wait(timeout: timeout) == .success, let addresses = box.get() else { throw .timedOut }
        guard !addresses.isEmpty else { throw .resolutionFailed }
        return addresses
    }

    private static func lookup(_ name: String) -> [IPAddress] {
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
        var result: [IPAddress] = []
        var cursor: UnsafeMutablePointer<addrinfo>? = first
        while let entry = cursor {
            if let sa = entry.pointee.ai_addr, let address = IPAddress(socketAddress: sa), !result.contains(address) {
                result.append(address)
            }
            cursor = entry.pointee.ai_next
        }
        return result
    }
}

/// A lookup result handed from the helper thread to the waiting caller.
private final class ResultBox: @unchecked Sendable {
    // @unchecked: `value` is only touched under `lock`.
    private let lock = NSLock()
    private var value: [IPAddress]? = nil

    func set(_ addresses: [IPAddress]) {
        lock.lock()
        value = addresses
        lock.unlock()
    }

    func get() -> [IPAddress]? {
        lock.lock()
        defer { lock.unlock() }
        return value
    }
}

/// A counter shared between threads.
final class LockedCounter: @unchecked Sendable {
    // @unchecked: `count` is only touched under `lock`.
    private let lock = NSLock()
    private var count = 0

    /// Increments and returns true when the count was below `limit`; otherwise leaves it and returns false.
    func incrementIfBelow(_ limit: Int) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard count < limit else { return false }
        count += 1
        return true
    }

    /// Increments unconditionally.
    func increment() {
        lock.lock()
        count += 1
        lock.unlock()
    }

    func decrement() {
        lock.lock()
        count -= 1
        lock.unlock()
    }

    var value: Int {
        lock.lock()
        defer { lock.unlock() }
        return count
    }
}
