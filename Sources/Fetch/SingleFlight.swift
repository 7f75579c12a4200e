/// One run per key at a time (issue 67): a caller that asks for a key whose run is in flight waits for that run and
/// shares its result, or its error, instead of starting another; once the run ends the next caller starts a new one.
/// Nothing is kept: a result is the caller's to cache, and a failure is never cached. What the outbound fetches share
/// so that a burst of requests for one document (N browsers sent to one app's authorize link, N sign-ins meeting a
/// provider's expired keys) costs its host one request: the OAuth client metadata documents and the sign-in providers'
/// discovery documents and key sets.
public actor SingleFlight<Key: Hashable & Sendable, Value: Sendable, Failure: Error> {
    private var running: [Key: Task<Result<Value, Failure>, Never>] = [:]
    /// Callers waiting on each key's run, the one that started it included.
    private var waiting: [Key: Int] = [:]

    public init() {}

    /// How many callers wait on `key`'s run now, the one that started it included (0: none in flight).
    public func waiting(for key: Key) -> Int { waiting[key] ?? 0 }

    /// The result of `work` for `key`: of the run already in flight for `key` when there is one, else of a new run,
    /// which later callers for `key` share until it ends. The run goes on when its callers are cancelled.
    /// - Throws: what the run throws (every caller sharing it sees the same error).
    public func run(_ key: Key, _ work: @escaping @Sendable () async throws(Failure) -> Value) async throws(Failure)
        -> Value
    {
        let flight: Task<Result<Value, Failure>, Never>
        if let running = running[key] {
            flight = running
        } else {
            flight = Task { () async -> Result<Value, Failure> in
                do throws(Failure) { return .success(try await work()) } catch { return .failure(error) }
            }
            running[key] = flight
        }
        waiting[key, default: 0] += 1
        defer {
            waiting[key, default: 1] -= 1
            if waiting[key] == 0 {
                waiting[key] = nil
                running[key] = nil
            }
        }
        return try await flight.value.get()
    }
}
