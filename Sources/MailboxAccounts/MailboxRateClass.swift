import ServerKit

/// The request classes that have their own bucket per client address (CONTRACT.md 2.2).
public enum MailboxRateClass: UInt8, Sendable, CaseIterable {
    /// Requests without a usable bearer.
    case publicRequests
    /// Requests carrying a mailbox token.
    case freeAuthenticated
    /// Requests carrying a Pro JWT or Pro API token.
    case pro
    /// `POST /api/accounts` without a Pro bearer.
    case freeAccountCreation
    /// `POST /api/accounts` with a Pro bearer.
    case proAccountCreation
}

extension MailboxRateLimits {
    /// The rate of a class.
    public func rate(of rateClass: MailboxRateClass) -> TokenBucketRate {
        switch rateClass {
        case .publicRequests: publicRate
        case .freeAuthenticated: freeAuthenticated
        case .pro: pro
        case .freeAccountCreation: freeAccountCreation
        case .proAccountCreation: proAccountCreation
        }
    }
}
