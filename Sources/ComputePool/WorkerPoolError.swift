/// Why the pool refused work.
public enum WorkerPoolError: Error, Sendable {
    /// Every thread is busy and the queue of waiting jobs is full, or the pool is shut down; the caller
    /// should answer 503 rather than wait.
    case overloaded
}
