/// A gate that tasks wait at until the test opens it: for a test that holds a piece of work in flight while others
/// join it, without sleeping.
public actor TestGate {
    private var isOpen = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    public init() {}

    /// Returns once the gate is open (at once when it is).
    public func wait() async {
        if isOpen { return }
        await withCheckedContinuation { waiters.append($0) }
    }

    /// Opens the gate: every waiter goes on, and later ones do not wait.
    public func open() {
        isOpen = true
        for waiter in waiters { waiter.resume() }
        waiters = []
    }
}
