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

/// Per-client, per-class token buckets with bounded memory; IPv6 clients count per /64.
public final class RateLimiter: Sendable {
    private let rates: MailboxRateLimits
    private let table: TokenBucketTable
    private let seed: UInt64

    /// Creates a limiter with `capacity` bucket slots shared by every class.
    public init(rates: MailboxRateLimits, capacity: Int) {
        self.rates = rates
        self.table = TokenBucketTable(capacity: capacity)
        self.seed = UInt64.random(in: 1...UInt64.max)
    }

    /// Most buckets the limiter ever holds (its memory bound).
    public var slotCount: Int { table.slotCount }

    /// The rate of a class.
    public func rate(of rateClass: MailboxRateClass) -> TokenBucketRate {
        switch rateClass {
        case .publicRequests: rates.publicRate
        case .freeAuthenticated: rates.freeAuthenticated
        case .pro: rates.pro
        case .freeAccountCreation: rates.freeAccountCreation
        case .proAccountCreation: rates.proAccountCreation
        }
    }

    /// Takes a token for `client` (an address's rate-limit key, or any bytes naming the client) in
    /// `rateClass` at `nowMillis` (a monotonic millisecond clock).
    public func take(_ rateClass: MailboxRateClass, client: [UInt8], nowMillis: Int64) -> RateLimitDecision {
        table.take(fingerprint: fingerprint(rateClass, client), rate: rate(of: rateClass), nowMillis: nowMillis)
    }

    /// FNV-1a over class and key, mixed with a per-process random seed so that nobody can aim many
    /// keys at one slot; finished with a 64-bit avalanche (splitmix64).
    private func fingerprint(_ rateClass: MailboxRateClass, _ client: [UInt8]) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325 ^ seed
        for byte in [rateClass.rawValue, UInt8(client.count)] + client {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
        }
        hash ^= hash >> 30
        hash = hash &* 0xbf58_476d_1ce4_e5b9
        hash ^= hash >> 27
        hash = hash &* 0x94d0_49bb_1331_11eb
        hash ^= hash >> 31
        return hash
    }
}
