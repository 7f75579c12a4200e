/// How failed sign-ins slow a name (an owner's email, a Mail.td address, a Pro user's email). Failures are counted per
/// name and client address (``freeFailures``) and per name from every address together (``emailFreeFailures``, a much
/// higher bar): past its free failures each count blocks for twice as long as the one before (2 s, 4 s, 8 s, ...) up
/// to ``maximumDelay``. So whoever knows someone's email and guesses from a few addresses slows only those addresses,
/// and that person signs in from theirs; only a spray from many addresses blocks the name itself. A success clears the
/// counts of the name and of that address.
public struct SignInBackoff: Sendable, Equatable {
    /// Failures one client address (IPv6 per /64) may make for one email before any delay. Default 5.
    public var freeFailures: Int64 = 5
    /// Failures for one email from all addresses together before the email is blocked for everyone. Default 100.
    public var emailFreeFailures: Int64 = 100
    /// The longest block, in seconds. Default 15 minutes.
    public var maximumDelay: Int64 = 900

    public init(freeFailures: Int64 = 5, emailFreeFailures: Int64 = 100, maximumDelay: Int64 = 900) {
        self.freeFailures = freeFailures
        self.emailFreeFailures = emailFreeFailures
        self.maximumDelay = maximumDelay
    }

    /// Seconds the email is blocked for one client address after that address's `failures`-th failure in a row.
    public func delay(afterFailures failures: Int64) -> Int64 {
        delay(failures, free: freeFailures)
    }

    /// Seconds the email is blocked for every address after its `failures`-th failure in a row from all of them.
    public func emailDelay(afterFailures failures: Int64) -> Int64 {
        delay(failures, free: emailFreeFailures)
    }

    private func delay(_ failures: Int64, free: Int64) -> Int64 {
        let over = failures - free
        guard over > 0 else { return 0 }
        guard over < 32 else { return maximumDelay }
        return min(Int64(1) << over, maximumDelay)
    }
}
