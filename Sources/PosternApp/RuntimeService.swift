import Logging
import ServiceLifecycle

/// One part of a running Postern as a service of its `ServiceGroup`, under its name: `run()` starts the part, waits
/// for the group's graceful shutdown (or cancellation), then stops it and returns; or runs a part that is a `Service`
/// itself. The group starts every service at once and stops them one at a time in reverse order, each waiting for the
/// one after it, so the order of ``PosternRuntime/serviceNames`` is the order of dependence: a part listed later may
/// use every part listed before it until it has stopped.
struct RuntimeService: Service, CustomStringConvertible {
    /// The service's name in logs and in ``PosternRuntime/serviceNames``.
    let name: String
    /// The part's whole run: until the group's graceful shutdown (or cancellation), then stopped.
    private let body: @Sendable () async throws -> Void
    /// Where "stopped" is said (at debug level), once the part has stopped; nil says nothing.
    private var logger: Logger?

    /// - Parameters:
    ///   - start: starts the part; a throw ends the service and so the group (a listener that cannot serve).
    ///   - stop: stops it, returning once it has (requests finished, threads joined).
    init(
        _ name: String, start: @escaping @Sendable () async throws -> Void = {},
        stop: @escaping @Sendable () async -> Void
    ) {
        self.name = name
        body = {
            try await start()
            // Throws CancellationError when the group is cancelled instead: the part is stopped all the same.
            try? await gracefulShutdown()
            await stop()
        }
    }

    /// A part that is a service itself (a queue's dispatcher): the group runs its `run()`, which returns once the
    /// part has stopped after the group's graceful shutdown.
    init(_ name: String, running service: some Service) {
        self.name = name
        body = { try await service.run() }
    }

    var description: String { name }

    /// This service, saying when it has stopped to `logger`.
    func logging(to logger: Logger) -> RuntimeService {
        var copy = self
        copy.logger = logger
        return copy
    }

    func run() async throws {
        try await body()
        logger?.debug("stopped", metadata: ["service": "\(name)"])
    }
}
