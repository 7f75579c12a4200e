import Synchronization

/// OpenSSL contexts duplicated from one prepared template and kept for reuse, so that one key serves many threads at
/// once without setting a context up per call: ``take()`` hands out a kept context (or a new duplicate of the template
/// when none is kept), ``giveBack(_:reusable:)`` keeps it for the next call unless enough are kept. The one pool of
/// ``HMACSHA256/Key`` and ``RSASigner``.
///
/// `@unchecked Sendable`: the template is never modified after `init` (only read by `duplicate`); a kept context is
/// used by one call at a time, handed out and taken back by the mutex.
final class OpenSSLContextPool: @unchecked Sendable {
    private let template: OpaquePointer
    private let duplicate: @Sendable (OpaquePointer) -> OpaquePointer?
    private let free: @Sendable (OpaquePointer) -> Void
    private let spares = Mutex<[Spare]>([])
    /// A kept context; only the mutex's holder touches it.
    private struct Spare: @unchecked Sendable { let context: OpaquePointer }
    /// Contexts kept for reuse: one per thread that works at once, on the machines Postern runs on.
    private static var keptContexts: Int { 16 }

    /// A pool over `template`, which it owns from now on (`free` releases it and every context at `deinit`).
    init(
        template: OpaquePointer, duplicate: @escaping @Sendable (OpaquePointer) -> OpaquePointer?,
        free: @escaping @Sendable (OpaquePointer) -> Void
    ) {
        self.template = template
        self.duplicate = duplicate
        self.free = free
    }

    deinit {
        for spare in spares.withLock({ $0 }) { free(spare.context) }
        free(template)
    }

    /// A context of the caller's own until ``giveBack(_:reusable:)``; nil when OpenSSL cannot duplicate the template.
    func take() -> OpaquePointer? {
        spares.withLock { $0.popLast()?.context } ?? duplicate(template)
    }

    /// Keeps `context` for the next call when it is `reusable` (a context that failed may hold state of the failure)
    /// and fewer than enough are kept; frees it otherwise.
    func giveBack(_ context: OpaquePointer, reusable: Bool = true) {
        let kept =
            reusable
            && spares.withLock { spares in
                guard spares.count < Self.keptContexts else { return false }
                spares.append(Spare(context: context))
                return true
            }
        if !kept { free(context) }
    }
}
